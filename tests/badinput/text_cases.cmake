# UTF-16 text (issue 39 item 5; cases made by make_text_cases.py): converted to UTF-8 and read,
# with an input-quality note, where it was "binary data" or "not a format commdx reads".
badinput(utf16_nccl_log ${ran} "0xbb4fa72d159634ea +2 +1" logs utf16_nccl.log)
badinput(utf16_nccl_log_note ${ran} "load\\.converted_text x1: UTF-16LE text" logs utf16_nccl.log)
badinput(utf16be_nccl_log ${ran} "load\\.converted_text x1: UTF-16BE text" logs utf16be_nccl.log)
badinput(utf16_topo ${ran} "GPUs +2" topo --from utf16_topo.txt)
badinput(utf16_trace_diagnose ${ran} "utf16_trace\\.json +kineto" diagnose utf16_trace.json)
badinput(utf16_trace ${ran} "utf16_trace\\.json +distributedInfo" trace utf16_trace.json)
# UTF-16LE without a byte-order mark, of nvidia-smi's colour-coded terminal output: its ESC codes
# made it "not recognised as snapshot or smi_topo ...".
badinput(utf16le_colour_topo ${ran} "GPUs +1" topo --from utf16le_colour_topo.txt)
badinput(utf16le_colour_topo_note ${ran} "load\\.converted_text x1: UTF-16LE text" diagnose
         utf16le_colour_topo.txt)
