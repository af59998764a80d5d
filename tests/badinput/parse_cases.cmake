# Text as other tools write it (issue 16 part B; cases made by make_parse_cases.py).
# A byte-order mark before every format: read, not skipped (traces and env dumps were skipped,
# topo aborted).
badinput(bom_trace ${ran} "bom_trace\\.json +kineto" diagnose bom_trace.json)
badinput(bom_env ${ran} "bom_env\\.json +env_dump" diagnose bom_env.json)
badinput(bom_nccl_log ${ran} "0xbb4fa72d159634ea" logs bom_nccl.log)
badinput(bom_topo ${ran} "GPUs +2" topo --from bom_topo.txt)
# Lone-CR line ends: the log's communicator is found (was "nothing found", exit 0).
badinput(cr_only_log ${ran} "0xbb4fa72d159634ea +2 +1" logs cr_only_nccl.log)
# compare refuses another schema version and outputs of different commands.
badinput(compare_schema_999 3 "result_schema_999\\.json: error: schema_version 999, but this commdx"
         compare result_diagnose.json result_schema_999.json)
badinput(compare_mixed_commands 3 "A is a `diagnose` result and B a `bench` result"
         compare result_diagnose.json result_bench.json)
badinput(unknown_subcommand 2 "unknown subcommand 'frobnicate'" frobnicate)
# Hostile sizes, generated at test time: each must finish well inside 60 s on the 2-core dev box
# (quadratic before: over 60 s each; linear now: under 5 s; docs/measurements/hostile-inputs.md).
set(hostile ${CMAKE_CURRENT_BINARY_DIR}/hostile)
add_test(NAME badinput_hostile_generate
  COMMAND python3 ${CMAKE_SOURCE_DIR}/bench_programs/gen_hostile_inputs.py ${hostile})
set_tests_properties(badinput_hostile_generate PROPERTIES LABELS badinput
  FIXTURES_SETUP badinput_hostile)
badinput(hostile_env_200k ${ran} "env_200k\\.json +env_dump" diagnose ${hostile}/env_200k.json)
badinput(hostile_comms_40k ${ran} "0x0000000000009c40 +2 " logs ${hostile}/comms_40k.log)
badinput(hostile_ranks_80k ${ran} "0xbb4fa72d159634ea +80000 +10000 +10000 +80000" logs ${hostile}/ranks_80k.log)
set_tests_properties(badinput_hostile_env_200k badinput_hostile_comms_40k badinput_hostile_ranks_80k
  PROPERTIES FIXTURES_REQUIRED badinput_hostile ENVIRONMENT COMMDX_CASE_TIMEOUT=60)
# Events far outside the trace's span: noted and left out of steps (the kernel at ts=0 made a
# step of 5,160,728,092 ms; now the trace's 1.085 ms).
badinput(far_out_kernel_at_zero ${ran} "kineto\\.far_out_events x1: .* at ts 0 µs"
         trace trace_kernel_at_zero.json)
badinput(far_out_kernel_104_days ${ran} "kineto\\.far_out_events x1: .*lasting 8985600\\.00 s"
         trace trace_kernel_104_days.json)
# Two processes spliced on one stdout: the embedded NCCL_P2P_DISABLE line is read (1 process
# before, 2 now) and the cut-off line noted.
badinput(spliced_log_override ${ran} "NCCL_P2P_DISABLE 1 +2 set by environment"
         logs spliced_p2p_disable.log)
badinput(spliced_log_note ${ran} "nccl_log\\.spliced_line x1: .*spliced_p2p_disable\\.log:40"
         logs spliced_p2p_disable.log)
