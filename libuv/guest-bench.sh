#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# libuv/guest-bench.sh REPS: uv_pool_bench in the QEMU guest, run by
# ci/libuv-bench.sh.  Four pools, interleaved, REPS times each, so that
# drift and noise show in the spread rather than in one configuration:
#   stock4   libuv as shipped (policy unset, 4 threads)
#   stock64  UV_THREADPOOL_SIZE=64
#   group    UV_THREADPOOL_POLICY=group (64 threads, width = CPUs)
#   lazy     UV_THREADPOOL_POLICY=lazy (4 threads + spares)
# each with the three scenarios (mixed, burst, stall).  One "LIBUV-BENCH:" CSV line per
# run; exit 1 if a run fails (a figure never fails it).
set -u
reps=${1:-5}
echo "libuv-bench: $(uname -r), $(nproc) CPUs, $reps repetitions"
status=0
for rep in $(seq 1 "$reps"); do
	for cfg in stock4 stock64 group lazy; do
		for scenario in mixed burst stall; do
			case $cfg in
			stock4)  env= ;;
			stock64) env="UV_THREADPOOL_SIZE=64" ;;
			group)   env="UV_THREADPOOL_POLICY=group" ;;
			lazy)    env="UV_THREADPOOL_POLICY=lazy" ;;
			esac
			line=$(env $env ./uv_pool_bench "$cfg" "$scenario" 2>/tmp/err)
			rc=$?
			if [ $rc -ne 0 ] || [ -z "$line" ]; then
				echo "libuv-bench: $cfg $scenario rep $rep failed ($rc): $(cat /tmp/err)"
				status=1
				continue
			fi
			echo "LIBUV-BENCH: $rep,$line"
		done
	done
done
exit $status
