# What io_case.sh's cases share, sourced by it: a fresh temporary folder (removed at exit, a
# background writer stopped), and the helpers that run commdx and check what it said.
# Needs case_name, commdx, src and ex set.
tmp=$(mktemp -d)
bg=""  # a background writer (growing_* cases), stopped whatever the outcome
trap '[ -n "$bg" ] && kill $bg 2>/dev/null; chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
out=$tmp/out.txt err=$tmp/err.txt
fail() { echo "FAIL $case_name: $*"; echo "--- stderr:"; head -c 3000 "$err"; echo "--- stdout:";
         head -c 2000 "$out"; exit 1; }
# run EXPECTED_EXITS CMD...: runs commdx with a 60 s limit; a hang or a signal fails.
run() {
  local exits=$1; shift
  timeout 60 "$commdx" "$@" >"$out" 2>"$err"; rc=$?
  [ $rc -eq 124 ] && fail "hung: $*"
  [ $rc -gt 128 ] && fail "killed by signal $((rc - 128)): $*"
  case ",$exits," in *",$rc,"*) ;; *) fail "exit $rc, expected $exits: $*" ;; esac
}
has() { cat "$out" "$err" | grep -qE -- "$1" || fail "output lacks /$1/"; }
job() { mkdir -p job && cp "$ex"/nccl.vm.*.log "$ex"/env_rank*.json job/; }
# An AddressSanitizer build: its shadow memory cannot live under `ulimit -v`, and its peak RSS
# says nothing about commdx's own.
sanitized() { grep -qa "__asan_init" "$commdx"; }
json_procs() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["inputs"]), sum(i["bytes"] for i in d["inputs"]))' "$1"; }
