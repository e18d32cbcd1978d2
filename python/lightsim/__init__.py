"""lightsim: photonic hardware for LLM inference, simulated (docs/python.md).

The library the ``lightsim`` program runs, for notebooks and scripts:

- configs: load_config, config_kinds, families, data_dir (where the presets come from);
- studies: list_studies, run_study (the seed's claims recomputed: claims, tables, charts,
  NumPy arrays);
- KV cache: generate_kv, score (any block scorer on NumPy arrays), evaluate_kv;
- prefill: prefill_evaluate (one plan);
- every operation of the CLI as a function of its own name, returning the dict of its
  ``--json`` output: photonics_ring, photonics_link_budget, photonics_feasibility, prism_cost,
  prism_thermal, fabric_collective, model_show, prefill_run, prefill_plan, decode_run,
  study_run, ... (operations() lists them with their fields; run(name, **fields) runs one by
  name).

Results are dicts, lists and NumPy arrays. Bad input raises InputError (a ValueError)
naming the file, key and expected unit. Presets ("seed", "seed_8k", ...) come from the data
folder shipped with the package (lightsim/data/), or $LIGHTSIM_DATA (docs/install.md).
"""
from . import _core
from ._core import (ConfigError, DataFormatError, Error, InputError, Interrupted, OutOfMemory,
                    UnitError, UsageError, __version__)
from ._signatures import native as _native
from ._signatures import operation as _operation

# The compiled functions that are not operations, each with its pybind11 signature.
NATIVE_FUNCTIONS = ("data_dir", "load_config", "config_kinds", "families", "list_studies", "run_study",
                    "score", "generate_kv", "evaluate_kv", "prefill_evaluate", "operations",
                    "run", "run_json")
for _name in NATIVE_FUNCTIONS:
    globals()[_name] = _native(getattr(_core, _name))

# One function per registered operation, its parameters the operation's request fields.
OPERATIONS = tuple(op["name"] for op in _core.operations())
for _op in _core.operations():
    globals()[_op["name"]] = _operation(_core.run, _op)
del _name, _op

__all__ = ["ConfigError", "DataFormatError", "Error", "InputError", "Interrupted", "OutOfMemory",
           "UnitError", "UsageError", "__version__", *NATIVE_FUNCTIONS, *OPERATIONS]
