# Sections of a page that a bench writes: the lines between its
# "<!-- NAME:begin ... -->" and "<!-- NAME:end -->" lines. The benches write
# the rows they measure; the prose around them (what the figures mean,
# what was found) is kept by hand. Sourced by scripts/bench.sh and
# scripts/bench-proxy.sh.

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
