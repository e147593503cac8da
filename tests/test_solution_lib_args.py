"""The shared entry-point argument checks of ``operators/_solution_lib`` (``gdn_prefill_args.py``,
``indexer_args.py``): what they return for good arguments, and a ValueError naming the seed and the argument
for each kind of bad one."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

LIB = Path(__file__).resolve().parents[1] / "operators" / "_solution_lib"


def _lib(name: str):
    spec = importlib.util.spec_from_file_location(f"solution_lib_{name}", LIB / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _indexer(batch: int = 3, pages: int = 5, max_pages: int = 4) -> dict:
    return {"q_index_fp8": torch.zeros(batch, 64, 128, dtype=torch.float8_e4m3fn),
            "k_index_cache_fp8": torch.zeros(pages, 64, 1, 132, dtype=torch.int8),
            "weights": torch.ones(batch, 64), "seq_lens": torch.full((batch,), 100, dtype=torch.int64),
            "block_table": torch.zeros(batch, max_pages, dtype=torch.int64),
            "topk_indices": torch.empty(batch, 2048, dtype=torch.int32)}


def test_indexer_args_return_the_kernels_views() -> None:
    a = _lib("indexer_args").indexer_args("s", **_indexer())
    assert (a["batch"], a["max_pages"], a["max_pos"]) == (3, 4, 256)
    assert a["q"].dtype == torch.uint8 and a["q"].shape == (3, 64, 128)
    assert a["k_scales"].dtype == torch.float32 and a["k_scales"].shape == (5, 64, 1, 33)
    assert a["lens"].dtype == torch.int32 and a["table"].dtype == torch.int32 and a["w"].dtype == torch.float32


@pytest.mark.parametrize("name, bad, match", [
    ("weights", torch.ones(3, 32), r"weights has shape \(3, 32\), expected \(3, 64\)"),
    ("k_index_cache_fp8", torch.zeros(5, 64, 1, 128, dtype=torch.int8), "k_index_cache_fp8 has shape"),
    ("seq_lens", torch.ones(2, dtype=torch.int32), r"seq_lens has shape \(2,\)"),
    ("topk_indices", torch.empty(3, 2048, dtype=torch.int64), "topk_indices must be int32"),
    ("topk_indices", torch.empty(2048, 3, dtype=torch.int32).t(), "output tensor topk_indices must be contiguous"),
])
def test_indexer_args_name_the_seed_and_the_bad_argument(name: str, bad: torch.Tensor, match: str) -> None:
    with pytest.raises(ValueError, match=f"^my_seed: {match}"):
        _lib("indexer_args").indexer_args("my_seed", **{**_indexer(), name: bad})


def _prefill(n_tok: int = 10, n_seq: int = 2) -> dict:
    return {"q": torch.zeros(n_tok, 4, 128), "k": torch.zeros(n_tok, 4, 128), "v": torch.zeros(n_tok, 8, 128),
            "state": None, "A_log": torch.zeros(8), "a": torch.zeros(n_tok, 8), "dt_bias": torch.zeros(8),
            "b": torch.zeros(n_tok, 8), "cu_seqlens": torch.tensor([0, 4, n_tok]), "scale": 0.0,
            "output": torch.empty(n_tok, 8, 128), "new_state": torch.empty(n_seq, 8, 128, 128)}


def test_prefill_args_return_counts_and_the_default_scale() -> None:
    a = _lib("gdn_prefill_args").prefill_args("s", **_prefill())
    assert (a["n_tok"], a["n_seq"], a["state"]) == (10, 2, None)
    assert a["scale"] == pytest.approx(128 ** -0.5)


@pytest.mark.parametrize("name, bad, match", [
    ("v", torch.zeros(10, 4, 128), r"v has shape \(10, 4, 128\), expected \(10, 8, 128\)"),
    ("cu_seqlens", torch.tensor([[0, 10]]), "cu_seqlens must be a non-empty 1-D"),
    ("new_state", torch.empty(3, 8, 128, 128), "new_state has shape"),
])
def test_prefill_args_name_the_seed_and_the_bad_argument(name: str, bad: torch.Tensor, match: str) -> None:
    with pytest.raises(ValueError, match=f"^my_seed: {match}"):
        _lib("gdn_prefill_args").prefill_args("my_seed", **{**_prefill(), name: bad})
