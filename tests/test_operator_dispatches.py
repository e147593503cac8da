"""The band dispatches committed in operator folders: each Solution JSON is what `kernelopt dispatch` composes
from today's seeds (not stale); the GDN prefill ones (recurrent seed for short calls, a chunked seed above) pass
the harness on one workload of each band (in the Triton interpreter on a CPU-only machine; the MoE seed's CPU
check needs ~40 GiB of host memory, so its specialists are checked by tests/test_seeds.py on a GPU)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "harness"))
from harness_helpers import DEVICE  # (sets TRITON_INTERPRET=1 on a CPU-only machine)
from retained_sets import marked, superseded_dispatch, superseded_if

from kernelopt.cli.main import main as cli
from kernelopt.data import EvaluationStatus as S
from kernelopt.data import load_solution
from kernelopt.data.records import EvalRequest, HarnessSettings, Workload
from kernelopt.generators.dispatch import band_index
from kernelopt.harness.evaluate import evaluate
from kernelopt.operators import load_operator

ROOT = Path(__file__).resolve().parents[1]
DEF = "gdn_prefill_qk4_v8_d128_k_last"
SEEDS = ROOT / "operators" / DEF / "solutions" / "seeds"
FILE = ROOT / "operators" / DEF / "solutions" / "dispatch" / "recurrent_chunked_224.json"
EDGE = 224
WY_FILE = ROOT / "operators" / DEF / "solutions" / "dispatch" / "recurrent_wy_401.json"
WY3_FILE = ROOT / "operators" / DEF / "solutions" / "dispatch" / "recurrent_wy3_401.json"
SEQS_FILE = WY3_FILE.with_name("wy3f_seqs8_bv64.json")
NESTED_FILE = WY3_FILE.with_name("recurrent_wy3f_bv64_401.json")
MOE = "moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048"
MOE_SEED = ROOT / "operators" / MOE / "solutions" / "seeds" / "moe_grouped_fp8"
MOE_DIR = ROOT / "operators" / MOE / "solutions" / "dispatch"
Q8_SEED = ROOT / "operators" / MOE / "solutions" / "seeds" / "moe_grouped_fp8_q8"
DECODE = "gdn_decode_qk4_v8_d128_k_last"
DECODE_SEED = ROOT / "operators" / DECODE / "solutions" / "seeds" / "gdn_decode_vtile"
DECODE_DISPATCH = ROOT / "operators" / DECODE / "solutions" / "dispatch"
LEAN = DECODE_SEED.with_name("gdn_decode_lean")
LEAN_NEW = f"{LEAN}@OUT_FROM_OLD=0"
CUDA = DECODE_SEED.with_name("gdn_decode_cuda")
#: the picked GDN decode dispatches' bands up to batch 16 (calls DI-DO): lean BV 4 at 1, vtile BV 8 / 8 warps to 8,
#: lean BV 4 to 16
DECODE_SMALL = [f"{LEAN}@BV=4", f"{DECODE_SEED}@BV=8,num_warps=8", f"{LEAN}@BV=4"]
IDX = "dsa_topk_indexer_fp8_h64_d128_topk2048_ps64"
IDX_SEEDS = ROOT / "operators" / IDX / "solutions" / "seeds"
IDX_DIR = ROOT / "operators" / IDX / "solutions" / "dispatch"
ATT = "dsa_sparse_attention_h16_ckv512_kpe64_topk2048_ps64"
ATT_SEEDS = ROOT / "operators" / ATT / "solutions" / "seeds"
ATT_DIR = ROOT / "operators" / ATT / "solutions" / "dispatch"
BF16 = "INTER_DTYPE=bf16"
WY3P_C32 = "C=32,num_warps=4,BV=64,num_warps_h=4,BV_O=128,num_warps_o=4"
WY3B_BV32_S2 = "C=64,BV=32,BV_O=64,num_warps=8,num_warps_h=4,num_warps_o=4,num_stages=2"
#: the retained GDN prefill dispatch (recurrent to 401 tokens, wy3h (wy3b with the prep's inverse by halves) to 1,376,
#: the same with pipelined loads above)
RETAINED_FILE = WY3_FILE.with_name("recurrent_wy3hh_1376_s2bv32.json")
WY3H = f"{SEEDS}/gdn_prefill_chunked_wy3h@MAXNREG=0,PRECISION=tf32,INTER=bf16,STATES=bf16,num_warps_h=4,num_warps_o=4"
#: wy3h's points in the retained dispatch's leaves (C 64 up to 16 sequences, C 32 above; pipelined: num_stages 2)
WY3H_C64 = f"{WY3H},C=64,BV=64,BV_O=64,num_stages=1,num_warps=4,PREP=halves"
WY3H_C32 = f"{WY3H},C=32,BV=64,BV_O=128,num_stages=1,num_warps=4,PREP=halves"
WY3H_S64 = f"{WY3H},C=64,BV=32,BV_O=64,num_stages=2,num_warps=4,PREP=halves"
WY3H_S32 = f"{WY3H},C=32,BV=64,BV_O=128,num_stages=2,num_warps=4,PREP=halves"
WY3H_S32_W2 = f"{WY3H},C=32,BV=64,BV_O=128,num_stages=2,num_warps=2,PREP=halves"  # hh2: the prep at 2 warps
WY3B_C32 = f"{SEEDS}/gdn_prefill_chunked_wy3b@{WY3P_C32}"
# (definition, committed file, axis, bands (seed folders, FOLDER@KEY=VALUE for another point), upper edges)
DISPATCHES = [
    (DEF, FILE, "total_seq_len", [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_chunked"], [EDGE]),
    (DEF, WY_FILE, "total_seq_len", [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_chunked_wy"], [401]),
    # the retained GDN prefill dispatch of 2026-12-01 calls AS-AX (the wy3 seed is frozen from here)
    (DEF, WY3_FILE, "total_seq_len", [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_chunked_wy3"], [401]),
    (DEF, WY3_FILE.with_name("recurrent_wy3f_401.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_chunked_wy3f"], [401]),
    # the retained GDN prefill dispatch of 2026-12-01 calls AY-BE (wy3f frozen from here), nested: above 401 tokens,
    # wy3f for up to 8 sequences, at BV 64 for 9 or more (half the state-walk programs, each reading W and K once
    # per 64 columns of V instead of 32: 9 sequences x 8 heads x 2 tiles = 144 programs fill the H200's 132 SMs)
    (DEF, SEQS_FILE, "len_cu_seqlens", [SEEDS / "gdn_prefill_chunked_wy3f", f"{SEEDS}/gdn_prefill_chunked_wy3f@BV=64"],
     [9]),
    (DEF, NESTED_FILE, "total_seq_len", [SEEDS / "gdn_prefill_recurrent", SEQS_FILE], [401]),
    # the same with wy3v (chunk slots found 64 sequences a step): 1.16x over wy3f at 57 sequences (call BC); queued
    (DEF, SEQS_FILE.with_name("wy3v_seqs8_bv64.json"), "len_cu_seqlens",
     [SEEDS / "gdn_prefill_chunked_wy3v", f"{SEEDS}/gdn_prefill_chunked_wy3v@BV=64"], [9]),
    (DEF, NESTED_FILE.with_name("recurrent_wy3v_bv64_401.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3v_seqs8_bv64.json")], [401]),
    # the retained GDN prefill dispatch since 2026-12-01 call BF: the one above up to 2,284 tokens, wy3p above
    # (wy3v's kernels, each with its own warp count; its seed points pass in tests/test_seeds.py)
    (DEF, NESTED_FILE.with_name("recurrent_wy3f_wy3p_2284.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE, SEEDS / "gdn_prefill_chunked_wy3p"], [401, 2284]),
    # queued (call BI): the long band split by sequence count, wy3p at C 32 for 17 or more sequences (call BF: C 32
    # 0.35-0.37 ms at 20-57 sequences against 0.46 for the defaults in call BE, but 0.80 against 0.53 at 2)
    (DEF, SEQS_FILE.with_name("wy3p_seqs16_c32.json"), "len_cu_seqlens",
     [SEEDS / "gdn_prefill_chunked_wy3p", f"{SEEDS}/gdn_prefill_chunked_wy3p@{WY3P_C32}"], [17]),
    (DEF, NESTED_FILE.with_name("recurrent_wy3f_wy3pc32_2284.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE, SEQS_FILE.with_name("wy3p_seqs16_c32.json")], [401, 2284]),
    (MOE, MOE_DIR / "block_m16_m32_901.json", "seq_len", [MOE_SEED, f"{MOE_SEED}@BLOCK_M=32"], [901]),
    (MOE, MOE_DIR / "bf16_m16n64_m32_80.json", "seq_len",
     [f"{MOE_SEED}@BLOCK_M=16,BLOCK_N=64,{BF16}", f"{MOE_SEED}@BLOCK_M=32,{BF16}"], [80]),
    (MOE, MOE_DIR / "bf16_m16n64_m32_m64_80_901.json", "seq_len",
     [f"{MOE_SEED}@BLOCK_M=16,BLOCK_N=64,{BF16}", f"{MOE_SEED}@BLOCK_M=32,{BF16}",
      f"{MOE_SEED}@BLOCK_M=64,num_warps=8,{BF16}"], [80, 901]),
    # the retained MoE dispatch since 2026-12-01 call AN (the q8 seed is frozen from here: new points, new folders)
    (MOE, MOE_DIR / "q8m16f_q8m64s4f_80.json", "seq_len",
     [f"{Q8_SEED}@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast", f"{Q8_SEED}@num_stages=4,LAUNCH=fast"], [80]),
    # queued (call BP): the small band's point at 4 stages (call BG, three 32-80-token workloads: 0.938x)
    (MOE, MOE_DIR / "q8m16s4f_q8m64s4f_80.json", "seq_len",
     [f"{Q8_SEED}@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4", f"{Q8_SEED}@num_stages=4,LAUNCH=fast"],
     [80]),
    # the retained MoE dispatch from 2026-12-02 call BT to call BZ: q8rt (routing and tile table in one launch up to
    # 1,024 pairs, the long calls' tile table as two Triton launches)
    (MOE, MOE_DIR / "q8rt_m16s4f_m64s4f_80.json", "seq_len",
     [f"{Q8_SEED}rt@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
      f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast"],
     [80]),
    # measured in call BW (contest_moe_new_bw.md for the ex_m64s4fy one): the band up to 80 tokens with the routing
    # inside GEMM1's launch (q8rg); the long band's GEMMs over the tiles that exist (q8ex), its GEMM2 rows in bf16
    # (Y_BF16, the "y"), or q8ex with the GEMMs' programs in groups of tiles (q8sw)
    *[(MOE, MOE_DIR / f"q8rg_m16s4f_{long}_m64s4f{suffix}_80.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
        f"{Q8_SEED}{long[2:]}@num_stages=4,LAUNCH=fast{extra}"],
       [80]) for long in ("q8ex", "q8sw") for suffix, extra in (("", ""), ("y", ",Y_BF16=1"))],
    # the retained MoE dispatch since 2026-12-02 call BZ: call BW's dispatch with q8rt kept at 81-4,096 tokens (q8ex's
    # host sync: 0.859 vs 0.674 ms at 901)
    (MOE, MOE_DIR / "q8rg_m16s4f_q8rt_m64s4f_q8ex_m64s4fy_80_4096.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
      f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}ex@num_stages=4,LAUNCH=fast,Y_BF16=1"],
     [80, 4096]),
    # queued (call CA): q8pe above 80 tokens (the long calls' GEMMs as persistent programs: no host sync), 2 and 8 waves
    *[(MOE, MOE_DIR / f"q8rg_m16s4f_q8pe_m64s4fy{suffix}_80.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
        f"{Q8_SEED}pe@num_stages=4,LAUNCH=fast,Y_BF16=1{extra}"],
       [80]) for suffix, extra in (("", ""), ("w8", ",WAVES=8"))],
    # queued (call CA): the retained dispatch with q8td above 4,096 tokens (the long calls' GEMMs loading weights and
    # GEMM2's intermediate through tensor descriptors: GEMM2 at 118 registers per thread instead of 255)
    # (activations permuted and read through a descriptor; "tdg": gathered by token; "n64w4s3": GEMM1 at BLOCK_N 64,
    # 4 warps, 3 stages, 154 registers, three programs per SM)
    *[(MOE, MOE_DIR / f"q8rg_m16s4f_q8rt_m64s4f_q8td{name}_80_4096.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
        f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}td@LAUNCH=fast,Y_BF16=1{extra}"],
       [80, 4096]) for name, extra in (("_m64s4fy", ",num_stages=4"), ("g_m64s4fy", ",num_stages=4,A_SORTED=0"),
                                       ("_m64n64w4s3fy", ",num_stages=3,BLOCK_N=64,num_warps=4"))],
    # calls CB, CC: the retained dispatch (call CA's "tdg") with q8td at other points above 4,096 tokens (BLOCK_M 128,
    # GEMM2's BLOCK_N2 256, 3 / 5 stages, 4 warps; "g": activations gathered by token)
    *[(MOE, MOE_DIR / f"q8rg_m16s4f_q8rt_m64s4f_q8td{name}_80_4096.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
        f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}td@LAUNCH=fast,Y_BF16=1{extra}"],
       [80, 4096]) for name, extra in (("g_m128s3fy", ",num_stages=3,A_SORTED=0,BLOCK_M=128"),
                                       ("g_m128s4fy", ",num_stages=4,A_SORTED=0,BLOCK_M=128"),
                                       ("_m128s4fy", ",num_stages=4,BLOCK_M=128"),
                                       ("g_m128n256s3fy", ",num_stages=3,A_SORTED=0,BLOCK_M=128,BLOCK_N2=256"),
                                       ("_m128n256s3fy", ",num_stages=3,BLOCK_M=128,BLOCK_N2=256"),
                                       ("g_m64n256s4fy", ",num_stages=4,A_SORTED=0,BLOCK_N2=256"),
                                       ("g_m64s3fy", ",num_stages=3,A_SORTED=0"),
                                       ("g_m64s5fy", ",num_stages=5,A_SORTED=0"),
                                       ("g_m64w4s4fy", ",num_stages=4,A_SORTED=0,num_warps=4"))],
    # call CC: q8tc (the retained q8td point with the exact grid's tile count read as one copy of the tile table)
    # above 4,096 tokens, and from 81 tokens
    (MOE, MOE_DIR / "q8rg_m16s4f_q8rt_m64s4f_q8tc_80_4096.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
      f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}tc"], [80, 4096]),
    (MOE, MOE_DIR / "q8rg_m16s4f_q8tc_80.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4", f"{Q8_SEED}tc"], [80]),
    # call CF: q8tw (the retained q8tc with GEMM2 at its own warps, one W2 scale per K step) above 4,096 tokens,
    # GEMM2 at 4 / 8 warps, at 4 warps with 3 stages, and with the routing at 1 warp ("4r1": retained since call CF)
    *[(MOE, MOE_DIR / f"q8rg_m16s4f_q8rt_m64s4f_q8tw{name}_80_4096.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
        f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}tw@{extra}"],
       [80, 4096]) for name, extra in (("4", "NUM_WARPS2=4"), ("8", "NUM_WARPS2=8"),
                                       ("4s3", "NUM_WARPS2=4,num_stages=3"),
                                       ("4r1", "NUM_WARPS2=4,ROUTE_WARPS=1"))],
    # call CG: call CF's dispatch with q8rd up to 80 tokens: q8rg's point with GEMM2 on q8tw's
    # descriptor kernel (fp32 rows; at 8 warps; bf16 rows; BLOCK_N2 64)
    *[(MOE, MOE_DIR / f"q8rd_m16s4f{name}_q8rt_m64s4f_q8tw4r1_80_4096.json", "seq_len",
       [f"{Q8_SEED}rd@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4,{extra}",
        f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"],
       [80, 4096]) for name, extra in (("", "Y_BF16=0"), ("w8", "Y_BF16=0,SHORT_WARPS2=8"), ("y", "Y_BF16=1"),
                                       ("n64", "Y_BF16=0,BLOCK_N2=64"))],
    # call CH: call CF's dispatch with the short point at BLOCK_N 32 (twice GEMM1's programs for the few experts of
    # 7-16 tokens) and 128 (GEMM2's K step 128: whole 128-byte W2 row segments per step instead of 64) at 4 and 8
    # warps, and q8rd's descriptor GEMM2 there ("g_m16n128s4f": retained since call CH)
    *[(MOE, MOE_DIR / f"q8r{name}_q8rt_m64s4f_q8tw4r1_80_4096.json", "seq_len",
       [f"{Q8_SEED}{band}", f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast", f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"],
       [80, 4096]) for name, band in (
           ("g_m16n32s4f", "rg@BLOCK_M=16,BLOCK_N=32,num_warps=4,LAUNCH=fast,num_stages=4"),
           ("g_m16n128s4f", "rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4"),
           ("g_m16n128w8s4f", "rg@BLOCK_M=16,BLOCK_N=128,num_warps=8,LAUNCH=fast,num_stages=4"),
           ("d_m16n128s4f", "rd@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4,Y_BF16=0"))],
    # call CI: call CH's dispatch with its short point at 3 / 5 stages and GEMM2's BLOCK_N2 64 / 256; and q8tw from 81
    # tokens over the bound grid (no host sync) or the exact one (901 tokens: the GEMM2 of q8rt's pointer kernel at
    # 2.5 TB/s, call CH's host anatomy); the retained dispatch since call CI, composed on the device from the fastest
    # of each band
    *[(MOE, MOE_DIR / f"q8rg_m16n128{name}_q8rt_m64s4f_q8tw4r1_80_4096.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,{extra}", f"{Q8_SEED}rt@num_stages=4,LAUNCH=fast",
        f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"],
       [80, 4096]) for name, extra in (("s3f", "num_stages=3"), ("s5f", "num_stages=5"),
                                       ("n2_64s4f", "num_stages=4,BLOCK_N2=64"),
                                       ("n2_256s4f", "num_stages=4,BLOCK_N2=256"))],
    (MOE, MOE_DIR / "q8rg_m16n128s4f_q8tw4r1b_q8tw4r1_80_4096.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4",
      f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1,LONG_GRID=bound", f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"],
     [80, 4096]),
    (MOE, MOE_DIR / "q8rg_m16n128n2_64s4f_ci_q8tw4r1b_q8tw4r1_80_4096.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4,BLOCK_N2=64",
      f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1,LONG_GRID=bound", f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"],
     [80, 4096]),
    # measured in call CL, not taken (1.006-1.077 of the retained up to 80 tokens): the retained dispatch (call CI) with
    # q8rd's pointer GEMM2 up to 80 tokens at its own stages (SHORT_STAGES2): GEMM1 at 3 / 5 stages with GEMM2 at 4,
    # GEMM2 at 5; "s4g0" the retained point on q8rd (control)
    *[(MOE, MOE_DIR / f"q8rd_m16n128n2_64{name}_q8tw4r1b_q8tw4r1_80_4096.json", "seq_len",
       [f"{Q8_SEED}rd@BLOCK_M=16,BLOCK_N=128,BLOCK_N2=64,num_warps=4,LAUNCH=fast,TMA2_SHORT=0,Y_BF16=0,{extra}",
        f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1,LONG_GRID=bound", f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"],
       [80, 4096]) for name, extra in (("s4g0", "num_stages=4"), ("s3g4", "num_stages=3,SHORT_STAGES2=4"),
                                       ("s5g4", "num_stages=5,SHORT_STAGES2=4"), ("s4g5", "num_stages=4,SHORT_STAGES2=5"))],
    # the retained dispatch from call CM to call CR: call CI's with q8hp (q8tw's long calls, their host side one plan per shape)
    # from 81 tokens, over the bound grid up to 4,096 tokens and the exact one above
    (MOE, MOE_DIR / "q8rg_m16n128n2_64s4f_ci_q8hp4r1b_q8hp4r1_80_4096.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4,BLOCK_N2=64",
      f"{Q8_SEED}hp@LONG_GRID=bound", f"{Q8_SEED}hp"], [80, 4096]),
    # the retained dispatch since call CR (STAGES2 3; 2 measured in call CQ, 1.047): the same with q8s2 (q8hp with
    # the long calls' GEMM2 at its own stages, three programs per SM)
    *[(MOE, MOE_DIR / f"q8rg_m16n128n2_64s4f_ci_q8s2g{g}b_q8s2g{g}_80_4096.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4,BLOCK_N2=64",
        f"{Q8_SEED}s2@LONG_GRID=bound,STAGES2={g}", f"{Q8_SEED}s2@STAGES2={g}"], [80, 4096]) for g in (3, 2)],
    # call IA's Gluon GEMMs (measured, not taken): the retained short band (q8bp) with q8gl from 81 tokens / above 4,096
    *[(MOE, MOE_DIR / f"q8bp_80_{mid}_4096{tail}.json", "seq_len",
       [f"{Q8_SEED}bp@BLOCK_M=16,BLOCK_N2=64,num_warps=4,num_stages=4,LAUNCH=fast", f"{Q8_SEED}{mid[2:]}@LONG_GRID=bound",
        f"{Q8_SEED}gl"], [80, 4096]) for mid, tail in (("q8gl", ""), ("q8s2", "_q8gl"))],
    # measured in call CO, not taken (1.79x / 1.46x): GEMM1 above 4,096 tokens at 4 warps / 3 and 2 stages
    *[(MOE, MOE_DIR / f"q8rg_m16n128n2_64s4f_ci_q8hp4r1b_q8hp{name}_80_4096.json", "seq_len",
       [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4,BLOCK_N2=64",
        f"{Q8_SEED}hp@LONG_GRID=bound", f"{Q8_SEED}hp@{extra}"], [80, 4096])
      for name, extra in (("w4s3", "num_warps=4,num_stages=3"), ("w4s2", "num_warps=4,num_stages=2"))],
    (MOE, MOE_DIR / "q8rg_m16n128s4f_q8tw4r1_80.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=128,num_warps=4,LAUNCH=fast,num_stages=4",
      f"{Q8_SEED}tw@NUM_WARPS2=4,ROUTE_WARPS=1"], [80]),
    # queued (call CA): q8td from 81 tokens with both GEMMs persistent over the bound grid (no host sync), 2 per SM
    (MOE, MOE_DIR / "q8rg_m16s4f_q8tdp2_m64s4fy_80.json", "seq_len",
     [f"{Q8_SEED}rg@BLOCK_M=16,BLOCK_N=64,num_warps=4,LAUNCH=fast,num_stages=4",
      f"{Q8_SEED}td@LAUNCH=fast,Y_BF16=1,num_stages=4,PERSIST=2,LONG_GRID=bound"],
     [80]),
    # the retained GDN decode dispatch from 2026-12-01 call AE to 2026-12-03 call DH
    (DECODE, ROOT / "operators" / DECODE / "solutions" / "dispatch" / "bv8_w8_w1_8.json", "batch_size",
     [f"{DECODE_SEED}@BV=8,num_warps=8", f"{DECODE_SEED}@BV=8,num_warps=1"], [8]),
    # measured in call DF (1.018 / 1.019 of bv8_w8_w1_8 on batch 16-64): gdn_decode_stream above batch 8 (evict-first state loads; plain or evict-last
    # new-state stores)
    *[(DECODE, ROOT / "operators" / DECODE / "solutions" / "dispatch" / f"bv8_w8_stream_{name}_8.json", "batch_size",
       [f"{DECODE_SEED}@BV=8,num_warps=8", f"{DECODE_SEED.with_name('gdn_decode_stream')}{extra}"], [8])
      for name, extra in (("ef", ""), ("efel", "@STORE_POLICY=evict_last"))],
    # measured in call DG (0.952 / 0.965 of bv8_w8_w1_8 on batch 16-64): gdn_decode_lean above batch 8 (BV 8 and 4)
    *[(DECODE, ROOT / "operators" / DECODE / "solutions" / "dispatch" / f"bv8_w8_lean{name}_8.json", "batch_size",
       [f"{DECODE_SEED}@BV=8,num_warps=8", f"{DECODE_SEED.with_name('gdn_decode_lean')}{extra}"], [8])
      for name, extra in (("", ""), ("4", "@BV=4"))],
    # retained since call DH (the first; 1.093x vs fla, the second 1.091x): three bands, gdn_decode_lean at BV 4 for
    # batch 9-16 and with the output from the new state above
    # (call DG's table: 5.74 vs 6.24 us at batch 16, 9.70 / 14.50 / 18.46 vs 9.98 / 14.69 / 18.59 at 32 / 48 / 64)
    *[(DECODE, ROOT / "operators" / DECODE / "solutions" / "dispatch" / f"{name}_lean4_leannew_8_16.json", "batch_size",
       [first, f"{DECODE_SEED.with_name('gdn_decode_lean')}@BV=4",
        f"{DECODE_SEED.with_name('gdn_decode_lean')}@OUT_FROM_OLD=0"], [8, 16])
      for name, first in (("bv8_w8", f"{DECODE_SEED}@BV=8,num_warps=8"),
                          ("leanw8", f"{DECODE_SEED.with_name('gdn_decode_lean')}@num_warps=8,OUT_FROM_OLD=0"))],
    # measured in call DI (1.095x vs fla; call DK 1.095x): the retained three bands with gdn_decode_lean at BV 4 for
    # batch 1 (1.98 vs 2.08 us in call DH)
    (DECODE, DECODE_DISPATCH / "lean4_bv8_w8_lean4_leannew_1_8_16.json", "batch_size",
     [*DECODE_SMALL, LEAN_NEW], [1, 8, 16]),
    # call DL's pick (benchmarks/decode_bands.py over decode_copy_ceiling_h200_dl.json; call DK's pick was the
    # dispatch above, byte for byte): gdn_decode_lean at BV 16 from the new state at batch 49-64; 1.097x vs fla
    (DECODE, DECODE_DISPATCH / "picked_dl.json", "batch_size",
     [*DECODE_SMALL, LEAN_NEW, f"{LEAN}@BV=16,OUT_FROM_OLD=0", LEAN_NEW], [1, 8, 16, 48, 64]),
    # call DM's pick (1.096x vs fla; its batch-48 band, lean at BV 4, a pick within the timing's noise)
    (DECODE, DECODE_DISPATCH / "picked_dm.json", "batch_size",
     [*DECODE_SMALL, LEAN_NEW, f"{LEAN}@BV=4", f"{LEAN}@BV=16,OUT_FROM_OLD=0", LEAN_NEW], [1, 8, 16, 32, 48, 64]),
    # call DO's pick (1.095x vs fla; not adopted): lean at BV 16 / 8 warps from the new state at batch 33-64
    (DECODE, DECODE_DISPATCH / "picked_do.json", "batch_size",
     [*DECODE_SMALL, LEAN_NEW, f"{LEAN}@BV=16,num_warps=8,OUT_FROM_OLD=0", LEAN_NEW], [1, 8, 16, 32, 64]),
    # call DQ's pick with the CUDA seed gdn_decode_cuda (1.104x vs fla; call DR 1.101x): R 4 / LPR 8 / 4 warps per
    # block / PER_ROW at batch 1-4, R 8 / LPR 16 / 2 warps at 33-64 (call DP's pick, picked_dp.json, was composed
    # from the seed before PER_ROW existed: a measured record, not recomposed here)
    (DECODE, DECODE_DISPATCH / "picked_dq.json", "batch_size",
     [f"{CUDA}@LPR=8,WARPS=4,PER_ROW=1", f"{LEAN}@BV=4", f"{LEAN}@BV=16,OUT_FROM_OLD=0", f"{CUDA}@R=8,LPR=16,WARPS=2",
      LEAN_NEW], [4, 16, 32, 64]),
    # call DR's pick (1.105x vs fla in call DR, beside picked_dq 1.101x and picked_dl 1.096x)
    (DECODE, DECODE_DISPATCH / "picked_dr.json", "batch_size",
     [f"{CUDA}@LPR=8,WARPS=4", f"{CUDA}@R=8,LPR=8,WARPS=4", f"{LEAN}@BV=4", f"{CUDA}@R=8,LPR=16", LEAN_NEW],
     [1, 8, 16, 64]),
    # the retained DSA indexer since 2026-12-02 call BL: scoring and select in one launch up to 63 pages (33-45 in the
    # contest), the two-launch seed above (82-91 pages, where the one-launch kernel runs all its programs at 16 warps)
    (IDX, IDX_DIR / "one_bn128_fl_63.json", "max_num_pages",
     [f"{IDX_SEEDS}/dsa_indexer_one@BN=128,BLOCKS=1", IDX_SEEDS / "dsa_indexer_fl"], [63]),
    # queued (call BM): the same at BN 256 (call BL, 59 long workloads: 0.0277 / 0.0286 ms at 33-36 / 38-45 pages)
    (IDX, IDX_DIR / "one_bn256_fl_63.json", "max_num_pages",
     [f"{IDX_SEEDS}/dsa_indexer_one@BN=256,BLOCKS=1", IDX_SEEDS / "dsa_indexer_fl"], [63]),
    # queued (2026-12-02): the retained one-launch indexer with 2 spans per program above 63 pages (calls BP and BQ,
    # the 20 workloads of 82-91 pages side by side: 0.970 and 0.971 of the retained point)
    (IDX, IDX_DIR / "acc_blocks2_63.json", "max_num_pages",
     [IDX_SEEDS / "dsa_indexer_one_acc", f"{IDX_SEEDS}/dsa_indexer_one_acc@BLOCKS=2"], [63]),
    # the retained DSA indexer from 2026-12-02 call BX to 2026-12-03 call DA: the row-shared select (8 selectors) up
    # to batch 16, the seed dsa_indexer_one_acc above (call BV, the 59 long workloads side by side: coop at 8 selectors 0.78-0.96 of
    # dsa_indexer_one_acc at batch 4-15, 1.10-1.23 at 27-31)
    (IDX, IDX_DIR / "coop8_b16_acc.json", "batch_size",
     [f"{IDX_SEEDS}/dsa_indexer_coop@SELECTORS=8", IDX_SEEDS / "dsa_indexer_one_acc"], [16]),
    # measured in call DA (0.922 of the dispatch above on the 59 long workloads; the bisect seed alone 0.843)
    (IDX, IDX_DIR / "coop8_b16_bisect.json", "batch_size",
     [f"{IDX_SEEDS}/dsa_indexer_coop@SELECTORS=8", IDX_SEEDS / "dsa_indexer_bisect"], [16]),
    # the retained DSA indexer since 2026-12-03 call DD: the bands call DC measured, dsa_indexer_hist at HIST_BITS
    # 10 up to 45 pages (0.987-0.994 of the defaults there), at BLOCKS 2 above (0.950 at 82-91 pages)
    (IDX, IDX_DIR / "hist_hb10_b2_45.json", "max_num_pages",
     [f"{IDX_SEEDS}/dsa_indexer_hist@HIST_BITS=10", f"{IDX_SEEDS}/dsa_indexer_hist@BLOCKS=2"], [45]),
    # call DC's guess: dsa_indexer_hist at 4 warps / BN 128 (two programs per SM; no spill stack in its cubin with
    # Triton 3.9) up to 45 pages
    (IDX, IDX_DIR / "hist_w4bn128_45.json", "max_num_pages",
     [f"{IDX_SEEDS}/dsa_indexer_hist@num_warps=4,BN=128", IDX_SEEDS / "dsa_indexer_hist"], [45]),
    # the retained DSA attention since 2026-12-02 call BS: the barrier-merge seed at 64 splits up to 2 tokens
    (ATT, ATT_DIR / "heads_s64_s16_2.json", "num_tokens",
     [f"{ATT_SEEDS}/dsa_attn_heads@NUM_SPLITS=64,BK=32", ATT_SEEDS / "dsa_attn_heads"], [2]),
    # queued (2026-12-02): the retained GDN prefill dispatch with wy3b (bf16 scratch) in its long band (call BH, six
    # long workloads side by side: 0.697 of wy3p at the defaults, 0.651 at C 32)
    (DEF, SEQS_FILE.with_name("wy3b_seqs16_c32.json"), "len_cu_seqlens",
     [SEEDS / "gdn_prefill_chunked_wy3b", f"{SEEDS}/gdn_prefill_chunked_wy3b@{WY3P_C32}"], [17]),
    (DEF, NESTED_FILE.with_name("recurrent_wy3f_wy3bc32_2284.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE, SEQS_FILE.with_name("wy3b_seqs16_c32.json")], [401, 2284]),
    # queued (call CA; call BZ's sweep cut at 78 of 100 workloads): wy3b from 402 tokens (calls BX / BY, the 19
    # workloads of 461-2,284 tokens side by side: wy3b 0.835 and at C 32 0.837 of wy3f there)
    (DEF, NESTED_FILE.with_name("recurrent_wy3b_401.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3b_seqs16_c32.json")], [401]),
    # 2026-12-04 calls FA-FD: the same wy3b points with the state walk's loads pipelined (num_stages 2), at BV 32 up
    # to 16 sequences (call FA, kernels alone: 0.179 vs 0.288 ms at 5,709 tokens / 2 sequences) or C 32 / BV 32
    (DEF, SEQS_FILE.with_name("wy3b_s2_seqs16_bv32.json"), "len_cu_seqlens",
     [f"{SEEDS}/gdn_prefill_chunked_wy3b@{WY3B_BV32_S2}", f"{SEEDS}/gdn_prefill_chunked_wy3b@{WY3P_C32},num_stages=2"],
     [17]),
    (DEF, SEQS_FILE.with_name("wy3b_s2_seqs16_c32bv32.json"), "len_cu_seqlens",
     [f"{SEEDS}/gdn_prefill_chunked_wy3b@C=32,BV=32,BV_O=128,num_warps=4,num_warps_h=4,num_warps_o=4,num_stages=2",
      f"{SEEDS}/gdn_prefill_chunked_wy3b@{WY3P_C32},num_stages=2"], [17]),
    (DEF, NESTED_FILE.with_name("recurrent_wy3b_s2_seqs16_bv32_401.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3b_s2_seqs16_bv32.json")], [401]),
    (DEF, NESTED_FILE.with_name("recurrent_wy3b_s2_seqs16_c32bv32_401.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3b_s2_seqs16_c32bv32.json")], [401]),
    # the retained GDN prefill dispatch of call FD to call GB: call FC's sweep of the one above was slower on 10 of
    # the 11 workloads of 461-983 tokens (short chains: host-bound, 5-iteration noise) and faster above 1,376 but one
    (DEF, WY3_FILE.with_name("recurrent_wy3b_1376_s2bv32.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3b_seqs16_c32.json"),
      SEQS_FILE.with_name("wy3b_s2_seqs16_bv32.json")], [401, 1376]),
    # 2026-12-04 calls GB-GC: the same points with the prep kernel's chunk inverse by halves (wy3h) in the C 64 leaves
    # (h), in every leaf (hh: the retained dispatch since call GB) and with the C 32 leaves' prep at 2 warps (hh2)
    (DEF, SEQS_FILE.with_name("wy3h_seqs16_c32.json"), "len_cu_seqlens", [WY3H_C64, WY3B_C32], [17]),
    (DEF, SEQS_FILE.with_name("wy3h_s2_seqs16_bv32.json"), "len_cu_seqlens",
     [WY3H_S64, f"{WY3B_C32},num_stages=2"], [17]),
    (DEF, SEQS_FILE.with_name("wy3hh_seqs16_c32.json"), "len_cu_seqlens", [WY3H_C64, WY3H_C32], [17]),
    (DEF, SEQS_FILE.with_name("wy3hh_s2_seqs16_bv32.json"), "len_cu_seqlens", [WY3H_S64, WY3H_S32], [17]),
    (DEF, SEQS_FILE.with_name("wy3hh2_s2_seqs16_bv32.json"), "len_cu_seqlens",
     [WY3H_S64, WY3H_S32_W2], [17]),
    (DEF, WY3_FILE.with_name("recurrent_wy3h_1376_s2bv32.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3h_seqs16_c32.json"),
      SEQS_FILE.with_name("wy3h_s2_seqs16_bv32.json")], [401, 1376]),
    (DEF, RETAINED_FILE, "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3hh_seqs16_c32.json"),
      SEQS_FILE.with_name("wy3hh_s2_seqs16_bv32.json")], [401, 1376]),
    (DEF, WY3_FILE.with_name("recurrent_wy3hh2_1376_s2bv32.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEQS_FILE.with_name("wy3hh_seqs16_c32.json"),
      SEQS_FILE.with_name("wy3hh2_s2_seqs16_bv32.json")], [401, 1376]),
    # the one-launch seed from 49 tokens: to 832 (H100 call JB: 0.628 of the retained on 49-832), to 1,376 (H100
    # call JD: 0.75-0.78 of the retained on 959-1,377, the 1,377-token workload going to the leaf above)
    (DEF, WY3_FILE.with_name("recurrent_one_832_wy3hh_1376_s2bv32.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_onelaunch", SEQS_FILE.with_name("wy3hh_seqs16_c32.json"),
      SEQS_FILE.with_name("wy3hh_s2_seqs16_bv32.json")], [48, 832, 1376]),
    (DEF, WY3_FILE.with_name("recurrent_one_1376_s2bv32.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_onelaunch", SEQS_FILE.with_name("wy3hh_s2_seqs16_bv32.json")],
     [48, 1376]),
    # the walk-ahead one-launch seed at two points of its space (H100 calls QC / QD of 2026-12-07: planned by
    # benchmarks/dispatch_plan.py from 46 workloads of 49-1,376 tokens; 1.065x recurrent_one_1376_s2bv32 on 92 of 100)
    (DEF, WY3_FILE.with_name("recurrent_ahead_461_1376_s2bv32.json"), "total_seq_len",
     [SEEDS / "gdn_prefill_recurrent", SEEDS / "gdn_prefill_onelaunch_pf@C=32,BV=32,num_warps=8",
      SEEDS / "gdn_prefill_onelaunch_pf@BV=32,num_warps=8", SEQS_FILE.with_name("wy3hh_s2_seqs16_bv32.json")],
     [48, 461, 1376]),
]


@pytest.fixture(autouse=True)
def _builds(tmp_path, monkeypatch):
    monkeypatch.setenv("KERNELOPT_CACHE_DIR", str(tmp_path / "builds"))


@pytest.mark.parametrize("definition, file, axis, bands, edges", DISPATCHES, ids=[d[1].stem for d in DISPATCHES])
def test_the_committed_dispatch_is_what_the_cli_composes_from_the_seeds(
        tmp_path: Path, definition: str, file: Path, axis: str, bands: list, edges: list) -> None:
    out = tmp_path / "d.json"
    args = ["dispatch", definition, "--axis", axis, *(a for b in bands for a in ("--band", str(b))),
            *(a for e in edges for a in ("--upper", str(e))), "-o", str(out)]
    assert cli(args) == 0
    fresh, committed = load_solution(out), load_solution(file)
    assert fresh.hash() == committed.hash(), f"{file} is stale: recompose it with `kernelopt dispatch`"
    assert f"{axis} <= {edges[0]}" in committed.description


def _err(capsys: pytest.CaptureFixture[str]) -> str:
    return " ".join(capsys.readouterr().err.split())  # rich wraps long lines


def test_the_cli_explains_bad_bands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = str(SEEDS / "gdn_prefill_recurrent")
    out = str(tmp_path / "x.json")
    assert cli(["dispatch", DEF, "--axis", "total_seq_len", "--band", rec, "-o", out]) == 2
    assert "at least 2 specialists" in _err(capsys)
    assert cli(["dispatch", DEF, "--axis", "batch_size", "--band", rec, "--band", rec, "--upper", "8"]) == 2
    assert "--axis batch_size: not a var axis of gdn_prefill_qk4_v8_d128_k_last (its var axes: " in _err(capsys)
    # num_seqs is only in the optional state's shape (None when there is no initial state)
    assert cli(["dispatch", DEF, "--axis", "num_seqs", "--band", rec, "--band", rec, "--upper", "8"]) == 2
    assert "only optional inputs (state) have axis 'num_seqs'" in _err(capsys)
    other = ROOT / "operators" / "rmsnorm_h4096" / "solutions" / "baselines" / "reference.json"
    assert cli(["dispatch", DEF, "--axis", "total_seq_len", "--band", rec, "--band", str(other),
                "--upper", "8"]) == 2
    assert "is for 'rmsnorm_h4096'" in _err(capsys)
    assert not (tmp_path / "x.json").exists()


#: one trial of one call per workload: these tests check that a dispatch runs each band and passes, not its speed
#: nor the harness's defences (no same-address probe: in the interpreter each extra call of a GDN prefill dispatch
#: costs 7-15 s; the probe has its own tests in tests/adversarial/)
ONE_CALL = HarnessSettings(warmup=0, iterations=1, trials=1, time_reference=False, same_address_probe=False)


def prefill_workload(op: Any, uuid: str, tokens: int, seqs: int) -> Workload:
    """A synthetic GDN prefill workload of ``tokens`` in ``seqs`` sequences (its split and inputs from the operator's
    generators, keyed by ``uuid``)."""
    template = op.workloads[0].model_dump(mode="json")
    return Workload.model_validate({**template, "uuid": uuid, "axes": {"total_seq_len": tokens, "num_seqs": seqs,
                                                                       "len_cu_seqlens": seqs + 1}})


def evaluated(op: Any, file: Path, workloads: list[Workload]) -> list[Any]:
    """The results of the committed solution ``file`` on ``workloads`` (:data:`ONE_CALL`)."""
    req = EvalRequest(definition=op.definition, solution=load_solution(file), workloads=workloads, settings=ONE_CALL)
    return evaluate(req, device=DEVICE).results


#: two-band GDN prefill dispatches (recurrent to the edge, a chunked seed above), all superseded by RETAINED_FILE
TWO_BANDS = [(FILE, EDGE, "chunked_224"), (WY_FILE, 401, "wy_401"), (WY3_FILE, 401, "wy3_401"),
             (WY3_FILE.with_name("recurrent_wy3b_401.json"), 401, "wy3b_401")]


@pytest.mark.parametrize("file, edge", [marked(f, e, superseded=superseded_dispatch(DEF, f), test_id=i)
                                          for f, e, i in TWO_BANDS])
def test_the_dispatch_passes_on_a_workload_of_each_band(file: Path, edge: int) -> None:
    op = load_operator(DEF)
    short = min(op.workloads, key=lambda w: w.axes["total_seq_len"])
    long = min((w for w in op.workloads if w.axes["total_seq_len"] > edge),
               key=lambda w: w.axes["total_seq_len"])
    assert [band_index(w.axes["total_seq_len"], [edge]) for w in (short, long)] == [0, 1]
    results = evaluated(op, file, [short, long])
    assert [r.status for r in results] == [S.PASSED, S.PASSED], [r.log for r in results]
    assert json.loads(file.read_text())["spec"]["entry_point"] == "dispatch.py::run"


@superseded_if(superseded_dispatch(DEF, RETAINED_FILE))
def test_the_retained_dispatch_passes_in_each_of_its_leaf_bands() -> None:
    """recurrent_wy3hh_1376_s2bv32: the recurrent seed to 401 tokens, wy3h (wy3b with the prep's chunk inverse by
    halves; C 64 up to 16 sequences, C 32 above) to 1,376, the same with the state walk at num_stages 2 (BV 32 up to
    16 sequences) above. The top dispatch on one
    small synthetic workload in each of its first two bands; above, its specialist (the inner dispatch by number of
    sequences) on small workloads of each of its bands: a 1,377-token call takes minutes in the interpreter, and the
    routing above 1,376 is the composed file's (checked against the CLI above)."""
    op = load_operator(DEF)
    # (the top dispatch's C 32 band above 16 sequences: its seed point in test_seeds)
    top = [prefill_workload(op, f"retained-{n}-{s}", n, s) for n, s in ((6, 1), (402, 3))]
    inner = [prefill_workload(op, f"retained-{n}-{s}", n, s) for n, s in ((40, 3), (52, 17))]
    assert [band_index(w.axes["total_seq_len"], [401, 1376]) for w in top] == [0, 1]
    assert [band_index(w.axes["len_cu_seqlens"], [17]) for w in inner] == [0, 1]
    for file, wls in ((RETAINED_FILE, top), (SEQS_FILE.with_name("wy3hh_s2_seqs16_bv32.json"), inner)):
        results = evaluated(op, file, wls)
        assert [r.status for r in results] == [S.PASSED] * len(wls), (file.name, [r.log for r in results])


@superseded_if(superseded_dispatch(DEF, NESTED_FILE))
def test_the_nested_dispatch_passes_in_each_of_its_three_bands() -> None:
    """recurrent_wy3f_bv64_401: total_seq_len first, then the number of sequences (len_cu_seqlens) above 401
    tokens; one synthetic workload per leaf band, inputs from the operator's generators."""
    op = load_operator(DEF)
    leaves = [(6, 1), (402, 3), (402, 9)]  # (total_seq_len, num_seqs): recurrent, wy3f, wy3f at BV 64
    wls = [prefill_workload(op, f"nested-{n}-{s}", n, s) for n, s in leaves]
    assert [band_index(n, [401]) for n, _ in leaves] == [0, 1, 1]
    assert [band_index(s + 1, [9]) for _, s in leaves[1:]] == [0, 1]
    results = evaluated(op, NESTED_FILE, wls)
    assert [r.status for r in results] == [S.PASSED] * 3, [r.log for r in results]


@superseded_if(superseded_dispatch(DEF, SEQS_FILE.with_name("wy3p_seqs16_c32.json")))
def test_the_wy3p_sequence_split_passes_in_each_band() -> None:
    """wy3p_seqs16_c32: wy3p at its defaults for up to 16 sequences, at C 32 (its own warps per kernel) for 17 or
    more; one small synthetic workload per band."""
    op = load_operator(DEF)
    wls = [prefill_workload(op, f"wy3p-{s}", n, s) for n, s in ((40, 3), (52, 17))]
    assert [band_index(w.axes["len_cu_seqlens"], [17]) for w in wls] == [0, 1]
    results = evaluated(op, SEQS_FILE.with_name("wy3p_seqs16_c32.json"), wls)
    assert [r.status for r in results] == [S.PASSED] * 2, [r.log for r in results]
