"""The tensor shapes a model folder's weights hold, read from the files' headers alone (no torch): model.safetensors,
pytorch_model.bin (torch's zip format: files/torch_zip_shapes.py) or a sharded checkpoint's index and its shards; the
first of them the folder holds, as transformers picks it. A file that is not whole (truncated, a header that is not
its format's, a shard the index names and the folder lacks) is a DataError naming it, with what to do. Reads at most a
header per file: the weights themselves are never read."""

import json
import math
from pathlib import Path

from ..errors import DataError
from .torch_zip_shapes import torch_zip_shapes

WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
WEIGHT_FILES += ("pytorch_model.bin.index.json",)  # transformers' order of preference
DTYPE_BYTES = {"F64": 8, "I64": 8, "U64": 8, "C64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2,
               "U16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E4M3FNUZ": 1, "F8_E5M2": 1,
               "F8_E5M2FNUZ": 1}  # safetensors' dtypes that torch reads (safetensors.torch)  # fmt: skip
MAX_HEADER_BYTES = 100_000_000  # the safetensors library's own limit
REDO = "download or save the model again (save_pretrained)"

Shapes = dict[str, tuple[int, ...]]


def weights_file(folder: Path) -> Path | None:
    """The weights file transformers loads from `folder`: the first of WEIGHT_FILES it holds; None if none."""
    return next((folder / name for name in WEIGHT_FILES if (folder / name).is_file()), None)


def weight_shapes(folder: Path) -> tuple[Path, Shapes]:
    """The weights file of `folder` and {weight name: shape} of every tensor it holds (a sharded one's, over all its
    shards)."""
    path = weights_file(folder)
    if path is None:
        raise DataError(f"{folder} holds no weights (none of {', '.join(WEIGHT_FILES)}); save the model into it")
    return path, index_shapes(path) if path.name.endswith(".index.json") else file_shapes(path)


def file_shapes(path: Path) -> Shapes:
    return safetensors_shapes(path) if path.suffix == ".safetensors" else torch_zip_shapes(path)


def safetensors_shapes(path: Path) -> Shapes:
    """{name: shape} from a safetensors file's header, whose tensors must cover the bytes after it exactly (a
    truncated file does not)."""
    size = path.stat().st_size
    with path.open("rb") as file:
        length = int.from_bytes(file.read(8), "little")
        if size < 8 or length > min(size - 8, MAX_HEADER_BYTES):
            raise damaged(path, f"its header of {length} bytes does not fit the file's {size}")
        try:
            header = json.loads(file.read(length))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            raise damaged(path, "its header is not JSON") from None
    if not isinstance(header, dict):
        raise damaged(path, "its header is not a JSON object")
    shapes, spans = {}, []
    for name, entry in header.items():
        if name != "__metadata__":
            shapes[name] = tensor_shape(path, name, entry)
            spans.append((*entry["data_offsets"], name))
    covered = 0
    for begin, end, name in sorted(spans):
        if begin != covered:
            raise damaged(path, f"the bytes of tensor {name!r} do not follow those before it")
        covered = end
    held = size - 8 - length
    if covered != held:
        raise damaged(path, f"its tensors take {covered} bytes after the header, and the file holds {held}")
    return shapes


def tensor_shape(path: Path, name: str, entry) -> tuple[int, ...]:
    """The shape of one tensor of a safetensors header, its dtype, shape and offsets checked against each other."""
    fields = entry if isinstance(entry, dict) else {}
    dtype, shape, offsets = fields.get("dtype"), fields.get("shape"), fields.get("data_offsets")
    if not (isinstance(dtype, str) and dtype in DTYPE_BYTES and counts(shape) and counts(offsets)) or len(offsets) != 2:
        raise damaged(path, f"its entry for tensor {name!r} is not a dtype, a shape and two offsets")
    if offsets[1] - offsets[0] != math.prod(shape) * DTYPE_BYTES[dtype]:
        raise damaged(path, f"tensor {name!r} takes {offsets[1] - offsets[0]} bytes, not those of its shape {shape}")
    return tuple(shape)


def counts(value) -> bool:
    """Whether `value` is a list of whole numbers of at least 0."""
    return isinstance(value, list) and all(type(item) is int and item >= 0 for item in value)


def index_shapes(index: Path) -> Shapes:
    """{name: shape} over the shards a sharded checkpoint's index names, each weight found in the shard it names."""
    try:
        weight_map = json.loads(index.read_text(encoding="utf-8"))["weight_map"]
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError):
        raise damaged(index, "it is not JSON with a weight_map") from None
    if not isinstance(weight_map, dict) or not all(isinstance(shard, str) for shard in weight_map.values()):
        raise damaged(index, "its weight_map is not an object of shard file names")
    shapes = {}
    for shard in sorted(set(weight_map.values())):
        path = index.parent / shard
        if Path(shard).name != shard or not path.is_file():
            raise damaged(index, f"it names the shard {shard!r}, which {index.parent} does not hold")
        found = file_shapes(path)
        absent = sorted(name for name, named in weight_map.items() if named == shard and name not in found)
        if absent:
            raise damaged(index, f"it places {absent[0]!r} in {shard}, which holds no such tensor")
        shapes.update(found)
    return shapes


def damaged(path: Path, why: str) -> DataError:
    return DataError(f"{path} is not a whole weights file ({why}): {REDO}")
