"""The tensor shapes of a state dict that torch.save wrote in its zip format (pytorch_model.bin), read without torch:
a restricted unpickler that knows only the globals such a file uses, a subset of those torch's weights-only loading
allows (OrderedDict, the tensor and parameter rebuilders, the storage types), each stood in for by a function that
returns a tensor's shape. Nothing else is ever looked up, so nothing else can run: any other global is refused, as is
torch's legacy format (before torch 1.6) and a file that is not whole."""

import pickle
import zipfile
from collections import OrderedDict
from pathlib import Path
from typing import NamedTuple

from ..errors import DataError

PICKLE = "data.pkl"
CONVERT = "load it with torch and save the model again with save_pretrained (which writes model.safetensors)"


class Storage(NamedTuple):
    kind: str  # torch's storage type (FloatStorage, ...)
    numel: int


class Tensor(NamedTuple):
    shape: tuple[int, ...]


def _tensor(storage, offset, size, stride, *_) -> Tensor:
    """_rebuild_tensor (v1, v2, v3): the shape, once the tensor is seen to lie inside its storage."""
    numbers = [offset, *size, *stride]
    if not isinstance(storage, Storage) or not all(type(number) is int and number >= 0 for number in numbers):
        raise ValueError("a tensor that is not a storage, an offset, a size and a stride")
    if len(size) != len(stride):
        raise ValueError("a tensor whose size and stride differ in length")
    if all(size) and offset + sum((n - 1) * s for n, s in zip(size, stride, strict=True)) >= storage.numel:
        raise ValueError("a tensor beyond its storage")
    return Tensor(tuple(size))


def _parameter(data, *_) -> Tensor:
    """_rebuild_parameter (and with_state): the tensor it wraps."""
    if not isinstance(data, Tensor):
        raise ValueError("a parameter that wraps no tensor")
    return data


REBUILDERS = {
    ("collections", "OrderedDict"): OrderedDict,
    ("torch._utils", "_rebuild_tensor"): _tensor,
    ("torch._utils", "_rebuild_tensor_v2"): _tensor,
    ("torch._utils", "_rebuild_tensor_v3"): _tensor,
    ("torch._utils", "_rebuild_parameter"): _parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _parameter,
}


class UnreadGlobal(Exception):
    """A global of the pickle outside REBUILDERS and the storage types: it is refused, never looked up."""


class ShapeUnpickler(pickle.Unpickler):
    """Unpickles a state dict to {name: Tensor(shape)}; its storages are the archive's records, never read."""

    def __init__(self, file, records: set[str], prefix: str):
        super().__init__(file)
        self.records, self.prefix = records, prefix

    def find_class(self, module: str, name: str):
        if (module, name) in REBUILDERS:
            return REBUILDERS[module, name]
        if module == "torch" and name.endswith("Storage"):
            return name
        raise UnreadGlobal(f"{module}.{name}")

    def persistent_load(self, pid) -> Storage:
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage" and type(pid[4]) is int):
            raise ValueError("a stored object other than a tensor's storage")
        _, kind, key, _location, numel = pid
        if f"{self.prefix}data/{key}" not in self.records:
            raise ValueError(f"a storage ({key}) the archive does not hold")
        return Storage(str(kind), numel)


def torch_zip_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """{name: shape} of the state dict in the torch.save file `path`."""
    with path.open("rb") as file:
        start = file.read(2)
    if not zipfile.is_zipfile(path):
        why = "it is in torch's legacy format (before torch 1.6), which is not read here" if start[:1] == b"\x80" else (
            "it is not a zip archive as torch.save writes (truncated, or another format)")  # fmt: skip
        raise DataError(f"{path}: {why}; {CONVERT}")
    try:
        with zipfile.ZipFile(path) as archive:
            records = set(archive.namelist())
            pickles = [name for name in records if name.rpartition("/")[2] == PICKLE]
            if len(pickles) != 1:
                raise ValueError(f"{len(pickles)} {PICKLE} records, where torch.save writes one")
            with archive.open(pickles[0]) as data:
                state = ShapeUnpickler(data, records, pickles[0].removesuffix(PICKLE)).load()
    except UnreadGlobal as error:
        raise DataError(f"{path}: its pickle asks for {error}, which is never run and no state dict of tensors needs; "
                        f"{CONVERT}") from None  # fmt: skip
    except Exception as error:  # noqa: BLE001 - a damaged archive or pickle raises anything: the same report
        raise DataError(f"{path} is not a whole torch.save file ({type(error).__name__}: {error}); {CONVERT}") from None
    if not isinstance(state, dict) or not all(isinstance(value, Tensor) for value in state.values()):
        raise DataError(f"{path}: it holds something other than a state dict of tensors; {CONVERT}")
    return {str(name): tensor.shape for name, tensor in state.items()}
