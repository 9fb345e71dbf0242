# rest_gate: waits until the machine is at rest before the rows that
# measure the daemon at rest (make bench's idle rows, the first minute):
# the 1-minute load at most 0.10 and the 5-minute at most 0.30, checked
# every 10 s, for at most REST_WAIT seconds (default 900; then it measures
# anyway and says so). Measured on the bench's VM: for minutes after heavy
# work (make bench's own scans and latency rows) an idle daemon's CPU is
# 2-3 times what it is at rest, and the baseline build's as much
# as the head's, side by side, so such a figure is the machine's recovery,
# not the daemon. Sourced by bench.sh and bench-first-minute.sh; it sets
# rest_load to the load it measured from.
rest_gate() {
  local waited=0 limit=${REST_WAIT:-900}
  while awk '{ exit !($1 > 0.10 || $2 > 0.30) }' /proc/loadavg; do
    if ((waited >= limit)); then
      echo "bench: the machine is not at rest after ${limit}s (load $(cut -d' ' -f1-3 /proc/loadavg)); measuring anyway" >&2
      break
    fi
    ((waited == 0)) && echo "bench: waiting for the machine to be at rest (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    sleep 10
    waited=$((waited + 10))
  done
  rest_load=$(cut -d' ' -f1-3 /proc/loadavg)
}
