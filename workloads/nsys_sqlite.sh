# Sourced by run_styles.sh and run_as_nodes.sh: an Nsight Systems capture into the gzipped
# SQLite export commdx reads. On the GPU machine `nsys profile` leaves the raw .qdstrm
# (docs/measurements/nsys-captures.md): QdstrmImporter makes the .nsys-rep from it, `nsys export`
# the SQLite.
#   nsys_to_sqlite REP_BASE OUT.sqlite LOG
# Uses NSYS, and NSYS_LIBS (the libdw/libelf the tools need) and NSYS_EXPORT_FLAGS if set.
nsys_to_sqlite() {
  local rep=$1 out=$2 log=$3 qi
  qi=$(dirname "$(dirname "$NSYS")")/linux-desktop-glibc_2_11_3-x64/QdstrmImporter
  LD_LIBRARY_PATH=${NSYS_LIBS:-} "$qi" -i "$rep.qdstrm" >>"$log" 2>&1
  # --include-json: NCCL's NVTX payloads (message size, communicator, rank) as JSON text, which
  # commdx reads; NSYS_EXPORT_FLAGS replaces it (e.g. adding --include-blobs true).
  # shellcheck disable=SC2086
  LD_LIBRARY_PATH=${NSYS_LIBS:-} "$NSYS" export --type sqlite ${NSYS_EXPORT_FLAGS:---include-json true} \
    -o "$out" "$rep.nsys-rep" >>"$log" 2>&1 && gzip -6 -f "$out"
  rm -f "$rep.qdstrm" "$rep.nsys-rep"
}
