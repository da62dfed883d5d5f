"""Files in and out: every file the analysis reads and every output it writes, below the
statistics.

- counts_file: a counts file (memfbench counts) read and checked
- reading: a file's JSON text, bounded (plain or gzip) and ResultFileError, the error of an input
  that cannot be used
- upgrade: older result files as the current schema version
- schema: the result file's JSON Schema (docs/schema/), validation against it (a fast check,
  jsonschema for what it does not pass), the names it defines
- load: result files as numpy columns (Batches) and pandas frames made from them on first use
  (Run), one row per batch; read_result reads, upgrades and validates one document
- identity: a variant is its code: files whose same-named variant ran different code kept apart
- placement_check: what a file says about its processes' placement check
- cost: what a study's processes cost, by phase, from their setup blocks and the parent's timings
- probe_file, ab_file: the probe and ab files' schemas and readers
- callsites: a recorded trace's call sites (callsites.csv)
- files: outputs written atomically (OutputError, the error of an output that cannot be written)
- export: a result file as Google Benchmark JSON or flat CSV
- tune_folder: a memfbench tune folder (tune.json, race.json, the fresh study, the checks) read back
"""
