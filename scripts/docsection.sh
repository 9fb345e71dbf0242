# Sections of a page that a bench writes: the lines between its
# "<!-- NAME:begin ... -->" and "<!-- NAME:end -->" lines. The benches write
# the rows they measure; the prose around them (what the figures mean,
# what was found) is kept by hand. Sourced by the bench scripts (bench.sh,
# bench-proxy.sh, bench-stdio.sh, bench-first-minute.sh).

# doc_markers DOC NAME: DOC has NAME's markers; else says so and fails.
doc_markers() {
  grep -q "^<!-- $2:begin" "$1" && grep -qx "<!-- $2:end -->" "$1" && return 0
  echo "$1 has no $2 markers (<!-- $2:begin ... --> and <!-- $2:end -->) to write between; put them back where the section goes" >&2
  return 1
}

# doc_section DOC NAME FILE: FILE's lines go between NAME's markers, the
# rest of DOC stays as it is; DOC is left alone when a marker is missing.
doc_section() {
  local doc=$1 name=$2 file=$3
  doc_markers "$doc" "$name" || return 1
  awk -v begin="<!-- $name:begin" -v end="<!-- $name:end -->" -v section="$file" '
    index($0, begin) == 1 { print; while ((getline l < section) > 0) print l; skip = 1; next }
    $0 == end { skip = 0 }
    !skip { print }
  ' "$doc" >"$doc.new"
  mv "$doc.new" "$doc"
}

# bench_table DOC NAME TARGET MEASURED LOAD0 ROWS: NAME's section of DOC
# becomes what every bench section says first (which make target, when, at
# which commit, on what machine, the load before and after) and the table
# of ROWS; it is printed too.
bench_table() {
  local doc=$1 name=$2 target=$3 measured=$4 load0=$5 rows=$6 section
  section=$(mktemp)
  {
    echo "Latest \`make $target\` (or \`make bench\`), measured in one run on one machine."
    echo
    echo "- date: $(date -u +%Y-%m-%dT%H:%MZ); commit $measured"
    echo "- machine: $(nproc) vCPU ($(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)), $(uname -sr); load before $load0, after $(cut -d' ' -f1-3 /proc/loadavg)"
    echo
    echo "| measure | result | goal | verdict |"
    echo "|---|---|---|---|"
    echo "$rows"
  } >"$section"
  doc_section "$doc" "$name" "$section"
  cat "$section"
  rm -f "$section"
}

# bench_commit: the commit a bench measures. Inside make bench it is the
# one the whole run read before it wrote anything (BENCH_COMMIT): the
# sections it writes first would make a later look say -dirty.
bench_commit() {
  echo "${BENCH_COMMIT:-$(git describe --always --dirty 2>/dev/null || echo unknown)}"
}
