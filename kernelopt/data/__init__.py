"""The shared vocabulary: FlashInfer Trace schema and kernelopt records.

Imports neither torch, mlflow nor hydra (enforced by import-linter).
"""

from kernelopt.data.definition import ConstAxis, Definition, DType, TensorSpec, VarAxis
from kernelopt.data.loader import (
    DataError,
    TraceSet,
    build_model,
    dump_jsonl,
    load_definition,
    load_solution,
    load_traces,
    parse_model,
)
from kernelopt.data.records import (
    CampaignState,
    CandidateRecord,
    ChampionInfo,
    Decision,
    EvalRequest,
    EvalResult,
    Evidence,
    HarnessSettings,
    LatencyStats,
    WorkloadResult,
)
from kernelopt.data.solution import BuildSpec, Language, Solution, SourceFile
from kernelopt.data.trace import (
    Correctness,
    Environment,
    Evaluation,
    EvaluationStatus,
    Performance,
    Trace,
)
from kernelopt.data.workload import RandomInput, SafetensorsInput, ScalarInput, Workload

__all__ = [
    "BuildSpec", "CampaignState", "CandidateRecord", "ChampionInfo", "ConstAxis", "Correctness", "DType", "DataError", "Decision",
    "Definition", "Environment", "EvalRequest", "EvalResult", "Evaluation", "EvaluationStatus",
    "Evidence", "HarnessSettings", "Language", "LatencyStats", "Performance", "RandomInput",
    "SafetensorsInput", "ScalarInput", "Solution", "SourceFile", "TensorSpec", "Trace", "TraceSet",
    "VarAxis", "Workload", "WorkloadResult", "build_model", "dump_jsonl", "load_definition", "load_solution",
    "load_traces", "parse_model",
]
