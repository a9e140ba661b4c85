#!/usr/bin/env bash
# Deduplicate a crawl on a Slurm cluster with crawlsift: an array job runs one shard per task,
# and a merge job that starts when every task has ended well writes the outputs (byte-identical to
# `crawlsift dedup INPUTS --out OUT` on one machine).
#
#   examples/slurm/dedup.sh OUT SHARDS /shared/crawl/*.warc.gz
#
# OUT must be on a file system every node sees; each task writes OUT.shards/shard-I, the merge
# reads only those folders. Adjust the #SBATCH resources below to your cluster.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 OUT SHARDS INPUT..." >&2
  exit 2
fi
out=$(realpath -m "$1")
shards=$2
shift 2
inputs=()
for f in "$@"; do inputs+=("$(realpath "$f")"); done
work="$out.shards"
mkdir -p "$work/logs"

# One task per shard: `--shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT`.
array=$(sbatch --parsable --array=0-$((shards - 1)) --cpus-per-task=2 --mem=4G \
  --job-name=crawlsift-shard --output="$work/logs/shard-%a.log" \
  --wrap="crawlsift dedup ${inputs[*]} --quiet --threads 2 \
    --shard \$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT --out $work/shard-\$SLURM_ARRAY_TASK_ID \
    || [ \$? -eq 3 ]")

# The merge, once every shard has ended well (status 3, problems in the input, counts as well,
# for the shards and the merge alike: a merge of shards that met damaged records says 3 too, and
# Slurm must not mark that finished job FAILED).
sbatch --dependency=afterok:"$array" --cpus-per-task=2 --mem=8G --job-name=crawlsift-merge \
  --output="$work/logs/merge.log" \
  --wrap="crawlsift merge $work/shard-* --out $out --force || [ \$? -eq 3 ]"
echo "submitted: shards as array job $array; the merge writes $out"
