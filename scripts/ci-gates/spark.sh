#!/usr/bin/env bash
# Gate (issue #20): the PySpark example (examples/spark_dedup.py, local[2] on 127.0.0.1) dedups a
# corpus as shards on Spark and merges them; its outputs must be the same bytes as one
# `crawlsift dedup` run over the same files (report.json: the same findings). Also the Slurm script
# (examples/slurm/dedup.sh) run against a stand-in `sbatch` that runs each job here, in order.
set -euo pipefail
shared=${1:-../shared}
root=$PWD
bin=${CRAWLSIFT_BIN:-$root/target/release/crawlsift}
command -v java >/dev/null 2>&1 || {
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless) >/dev/null
}
java -version 2>&1 | head -1
# The python gate (run before this one) built the wheel (target/wheels) and made this venv with
# it; run alone, this gate builds the wheel and makes the venv. The wheel is installed again (a
# few seconds, no compiling) so the venv holds exactly the wheel built.
venv=${SPARK_VENV:-target/pyvenv}
wheels=(target/wheels/crawlsift-*.whl)
if [ -f "${wheels[0]}" ]; then wheel=${wheels[0]}; else wheel=$(scripts/build_wheel.sh); fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q "pyspark>=3.5,<5"
[ -n "${SPARK_VENV_READY:-}" ] ||
  "$venv/bin/pip" install -q --no-index --no-deps --force-reinstall --only-binary :all: "$wheel"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$shared/tools/makecorpus.py" --out "$work/corpus" --docs 2000 --seed 7 --format trec-gz \
  --dup-rate 0.5 --files 5 >/dev/null
inputs=()
while IFS= read -r f; do inputs+=("$f"); done < <(find "$work/corpus" -name '*.gz' | sort)

"$bin" dedup "${inputs[@]}" --out "$work/single" --text "$work/single.jsonl.gz" --quiet
export SPARK_LOCAL_IP=127.0.0.1 PYSPARK_PYTHON="$(cd "$venv" && pwd)/bin/python"
"$venv/bin/python" examples/spark_dedup.py "${inputs[@]}" --out "$work/spark" --shards 3 \
  --text "$work/spark.jsonl.gz" 2> "$work/spark.log" || { tail -40 "$work/spark.log"; exit 1; }

same() { # name single merged
  python3 - "$@" <<'PY'
import gzip, json, sys
name, a, b = sys.argv[1:]
def load(p):
    if p.endswith("report.json"):
        r = json.load(open(p))
        for k in ("command_line", "started", "ended", "seconds", "throughput", "peak_memory_bytes", "threads"):
            r.pop(k)
        return r
    return (gzip.open if p.endswith(".gz") else open)(p, "rb").read()
if load(a) != load(b):
    sys.exit(f"{name}: the merged run differs from the single run")
print(f"{name}: same")
PY
}
for f in clusters.jsonl documents.jsonl.gz report.json; do
  same "spark $f" "$work/single/$f" "$work/spark/$f"
done
same "spark text" "$work/single.jsonl.gz" "$work/spark.jsonl.gz"

# Slurm: a stand-in sbatch runs --wrap commands here (an array job once per task, with the
# SLURM_ARRAY_* variables set), so the script's shard and merge commands are run for real.
mkdir -p "$work/fakebin"
cat > "$work/fakebin/sbatch" <<'SB'
#!/usr/bin/env bash
array="" wrap=""
for a in "$@"; do
  case $a in --array=*) array=${a#--array=} ;; --wrap=*) wrap=${a#--wrap=} ;; esac
done
if [ -n "$array" ]; then
  last=${array#0-}
  for i in $(seq 0 "$last"); do
    SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=$((last + 1)) bash -c "$wrap" || exit 1
  done
else
  bash -c "$wrap" || exit 1
fi
echo 4242
SB
chmod +x "$work/fakebin/sbatch"
ln -s "$bin" "$work/fakebin/crawlsift"
PATH="$work/fakebin:$PATH" examples/slurm/dedup.sh "$work/slurm" 4 "${inputs[@]}"
for f in clusters.jsonl documents.jsonl.gz report.json; do
  same "slurm $f" "$work/single/$f" "$work/slurm/$f"
done
