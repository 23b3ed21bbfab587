"""The benchmarks compare like with like: same weights, same outputs, a full table."""

import contextlib
import importlib.util
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

ROOT = Path(__file__).resolve().parent.parent


def load_script(name: str):
    """A benchmark script as a module, loaded by path (benchmarks/ is no package)."""
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "benchmarks" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def encoder_speed():
    return load_script("encoder_speed")


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("padded", [False, True])
def test_encoder_speed_times_two_equal_models(encoder_speed, norm_first, padded):
    size = encoder_speed.Size("test", 64, 4, 2, 4, 16, norm_first=norm_first)
    ours, theirs = encoder_speed.build(size)
    ids, mask = encoder_speed.batch(size, padded)
    assert (mask is not None) == padded and (mask is None or not mask.all())
    with torch.inference_mode():
        ours_out = ours.eval()(ids, mask)
        theirs_out = theirs.eval()(ids, mask)
    real = torch.ones_like(ids, dtype=torch.bool) if mask is None else mask
    assert torch.allclose(ours_out[real], theirs_out[real], atol=1e-5)


def test_encoder_speed_prints_a_full_table(encoder_speed, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["encoder_speed.py", "--quick", "--no-memory"])
    encoder_speed.main()
    rows = [line for line in capsys.readouterr().out.splitlines() if "| d=64" in line]
    assert len(rows) == 4  # full and padded batches, inference and training
    ratios = [float(row.split("|")[6]) for row in rows]
    assert all(ratio > 0 for ratio in ratios)


@pytest.fixture(scope="module")
def minilm_speed():
    return load_script("minilm_speed")


@pytest.fixture(scope="module")
def sts_eval():
    return load_script("sts_eval")


def test_minilm_speed_texts_are_real_and_fixed(minilm_speed):
    sentences = minilm_speed.docstring_texts("sentences", 50)
    paragraphs = minilm_speed.docstring_texts("paragraphs", 50)
    assert len(sentences) == len(paragraphs) == 50
    assert sentences == minilm_speed.docstring_texts("sentences", 50)
    assert min(len(t.split()) for t in sentences) >= 4
    assert min(len(t.split()) for t in paragraphs) >= 20


def test_minilm_speed_times_two_equal_models(minilm_speed):
    from encoderlib import load_minilm

    texts = minilm_speed.docstring_texts("paragraphs", 6) + ["Short.", ""]
    ours = load_minilm().encode(texts, batch_size=3)
    theirs = minilm_speed.HuggingFaceMiniLM()
    for sort in (True, False):
        assert torch.allclose(ours, theirs.encode(texts, 3, sort=sort), atol=1e-5)


def test_minilm_speed_prints_full_tables(minilm_speed, capsys, monkeypatch):
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, "argv", ["minilm_speed.py", "--quick"])
    try:
        minilm_speed.main()
    finally:
        torch.set_num_threads(threads)  # main() sets the thread count of this process
    out = capsys.readouterr().out
    rows = [
        line.split("|")
        for line in out.splitlines()
        if line.startswith(("| sentences |", "| paragraphs |"))
    ]
    fp32 = [cells for cells in rows if len(cells) == 17]  # 15 columns
    int8 = [cells for cells in rows if len(cells) == 11]  # 9 columns
    flops = [cells for cells in rows if len(cells) == 13]  # 11 columns
    for table in (fp32, int8, flops):
        assert [cells[1].strip() for cells in table] == ["sentences", "paragraphs"]
    assert all(cells[2].strip() == "8" for cells in fp32)
    assert all(float(cells[-2]) < 1e-5 for cells in fp32)  # fp32 sides agree
    ratios = (6, 8, 10, 12, 14)
    assert all(float(cells[i]) > 0 for cells in fp32 for i in ratios)
    for cells in int8:  # the lowest cosine of int8 vectors with fp32, ours and ORT's
        assert all(float(c) > 0.95 for c in cells[-2].split("/")), cells
    assert all(
        float(cells[3]) > 0 and cells[5].strip().endswith("%") for cells in flops
    )
    if (ROOT.parent / "shared/data/stsbenchmark/sts-test.csv").is_file():
        assert "| encoderlib int8 |" in out and "| ORT int8 |" in out
    else:
        assert "STS Benchmark: skipped" in out


def test_minilm_speed_counts_the_flops_torch_counts(minilm_speed):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.utils.flop_counter import FlopCounterMode

    from encoderlib import Encoder, EncoderConfig

    config = EncoderConfig.minilm_l6(n_layers=2, vocab_size=100)
    model = Encoder(config).eval()
    ids = torch.randint(0, 100, (1, 23))  # one sentence: nothing is padding
    # The MATH backend writes attention as two matrix products, which the counter
    # sees (the CPU's fused kernel is not counted).
    with (
        torch.no_grad(),
        sdpa_kernel(SDPBackend.MATH),
        FlopCounterMode(display=False) as counter,
    ):
        model(ids)
    assert minilm_speed.useful_flops(config, [23]) == counter.get_total_flops()
    assert minilm_speed.matmul_throughput(config, 16, 1) > 0


def test_sts_reader_splits_on_tabs_and_keeps_quotes(sts_eval, tmp_path):
    path = tmp_path / "sts.csv"
    path.write_text(
        'g\tf\t2012\t1\t4.500\tShe said "hi".\tShe greeted them.\tsource\n'
        'g\tf\t2012\t2\t0.000\tA cat.\tA "car\n',
        encoding="utf-8",
    )
    pairs = sts_eval.read_sts(path)
    assert pairs.first == ['She said "hi".', "A cat."]
    assert pairs.second == ["She greeted them.", 'A "car']
    assert pairs.scores == [4.5, 0.0]
    path.write_text("g\tf\t2012\t1\t4.5\tonly one sentence\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"sts.csv:1: expected at least 7"):
        sts_eval.read_sts(path)


def test_spearman_is_rank_correlation_times_100(sts_eval):
    a = torch.tensor([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    b = torch.tensor([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])  # cosines 1, 0.71, 0
    assert sts_eval.spearman_x100(a, b, [5.0, 3.0, 1.0]) == pytest.approx(100.0)
    assert sts_eval.spearman_x100(a, b, [1.0, 3.0, 5.0]) == pytest.approx(-100.0)


@pytest.mark.skipif(
    not (ROOT.parent / "shared/data/stsbenchmark/sts-test.csv").is_file(),
    reason="the STS Benchmark file of ../shared/data is not on this machine",
)
def test_minilm_reproduces_the_published_sts_benchmark_score(sts_eval):
    from encoderlib import load_minilm

    pairs = sts_eval.read_sts(sts_eval.DEFAULT_DATA)
    assert len(pairs.scores) == sts_eval.N_PAIRS == 1379
    vectors = load_minilm().encode(pairs.first + pairs.second)
    score = sts_eval.spearman_x100(vectors[:1379], vectors[1379:], pairs.scores)
    assert abs(score - sts_eval.PUBLISHED) < 0.5, score


def test_sts_eval_skips_without_data_offline(sts_eval, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(sts_eval, "DEFAULT_DATA", tmp_path / "absent.csv")
    monkeypatch.setattr(sys, "argv", ["sts_eval.py"])
    sts_eval.main()
    assert "skipped" in capsys.readouterr().out and sts_eval.hub_sts() is None


def test_sts_eval_prints_its_table_for_a_given_file(
    sts_eval, capsys, monkeypatch, tmp_path
):
    path = tmp_path / "tiny.csv"
    rows = [
        ("5.0", "A man plays a guitar.", "A man is playing the guitar."),
        ("3.0", "A dog runs in a park.", "A dog is sleeping in a park."),
        ("0.5", "The stock market fell.", "A cat sleeps on the sofa."),
    ]
    path.write_text(
        "".join(
            f"g\tf\t2017\t{i}\t{s}\t{a}\t{b}\n" for i, (s, a, b) in enumerate(rows)
        ),
        encoding="utf-8",
    )
    monkeypatch.setattr(sys, "argv", ["sts_eval.py", "--data", str(path)])
    sts_eval.main()
    out = capsys.readouterr().out
    assert "3 pairs from" in out and "threads" in out
    row = next(line for line in out.splitlines() if "load_minilm()" in line)
    assert float(row.split("|")[2]) == pytest.approx(100.0)  # the order is right


def test_sts_eval_reference_side_equals_encoderlib(sts_eval):
    from encoderlib import load_minilm

    texts = ["A man plays a guitar.", "", "Stocks fell sharply."]
    theirs = sts_eval.hf_sentence_vectors(texts)
    assert torch.allclose(load_minilm().encode(texts), theirs, atol=1e-5)


@pytest.fixture(scope="module")
def train_speed():
    return load_script("train_speed")


def test_train_speed_starts_both_models_equal(train_speed):
    from encoderlib import mlm_loss

    ours, theirs = train_speed.build(train_speed.SIZES["tiny"], train_speed.Recipe())
    batch = train_speed.make_batches(1, 4, 32, "shuffled")[0]
    assert (batch["labels"] != -100).any()
    with torch.no_grad():
        ours_loss = mlm_loss(ours.eval(), batch)
        theirs_loss = train_speed.hf_loss(theirs.eval(), batch)
    assert abs(ours_loss.item() - theirs_loss.item()) < 1e-5


def test_train_speed_batches_are_fixed_and_grouping_cuts_padding(train_speed):
    def padding(batches):
        mask = torch.cat([b["attention_mask"].flatten() for b in batches])
        return 1 - mask.float().mean().item()

    shuffled = train_speed.make_batches(6, 8, 64, "shuffled")
    again = train_speed.make_batches(6, 8, 64, "shuffled")
    for a, b in zip(shuffled, again, strict=True):
        for key in ("input_ids", "attention_mask", "labels"):
            # one seeded generator draws the same order and masks: equal bit for bit
            assert torch.equal(a[key], b[key])
    grouped = train_speed.make_batches(6, 8, 64, "grouped")
    assert padding(grouped) < padding(shuffled)
    assert all(b["input_ids"].shape[1] <= 64 for b in shuffled + grouped)


def test_train_speed_prints_a_full_table(train_speed, capsys, monkeypatch):
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, "argv", ["train_speed.py", "--quick", "--threads", "1"])
    try:
        train_speed.main()
    finally:
        torch.set_num_threads(threads)  # main() sets the thread count of this process
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| tiny (2×64) |")]
    speed = [row.split("|") for row in rows if len(row.split("|")) == 15]
    assert [cells[2].strip() for cells in speed] == ["shuffled", "grouped"]
    assert all(float(cells[9]) > 0 for cells in speed)  # ratio
    assert all(float(cells[13]) < 1e-4 for cells in speed)  # losses agree
    assert out.count("losses agree") == 2 and "DIFFER" not in out
    assert "encoder fwd" in out and "optimizer" in out  # where the time goes


@pytest.fixture(scope="module")
def attention_speed():
    return load_script("attention_speed")


@pytest.mark.filterwarnings("ignore:flex_attention called without torch.compile")
@pytest.mark.parametrize("padded", [False, True])
def test_attention_speed_implementations_agree(attention_speed, padded):
    ours, theirs = attention_speed.build(32, 4)
    impls = attention_speed.implementations(ours, theirs, window=3)
    assert set(attention_speed.GALLERY) - set(impls) <= {"FlexAttention (eager)"}
    x = torch.randn(2, 19, 32)  # 19: not a multiple of the window
    mask = torch.arange(19) < torch.tensor([[19], [11]]) if padded else None
    gaps = attention_speed.largest_differences(impls, x, mask)
    assert set(gaps) == set(impls)
    assert max(gaps.values()) < 1e-5, gaps


def test_attention_speed_prints_a_full_table(attention_speed, capsys, monkeypatch):
    threads = torch.get_num_threads()
    monkeypatch.setattr(
        sys, "argv", ["attention_speed.py", "--quick", "--threads", "1"]
    )
    try:
        attention_speed.main()
    finally:
        torch.set_num_threads(threads)  # main() sets the thread count of this process
    out = capsys.readouterr().out
    rows = [
        line.split("|") for line in out.splitlines() if line.startswith("|    16 |")
    ]
    names = [cells[2].strip() for cells in rows]
    assert "nn.MultiheadAttention" in names and "local, blocks (chapter 16)" in names
    reference = next(
        cells for cells in rows if cells[2].strip() == "nn.MultiheadAttention"
    )
    assert float(reference[4]) == 1.0  # the ratio's denominator
    assert all(float(cells[4]) > 0 and float(cells[5]) >= 0 for cells in rows)
    assert all(float(cells[6]) < 1e-5 for cells in rows)  # max diff
    assert "DIFFER" not in out


def test_host_syncs_prints_a_row_per_model_and_batch(capsys, monkeypatch):
    host_syncs = load_script("host_syncs")
    monkeypatch.setattr(sys, "argv", ["host_syncs.py", "--quick"])
    host_syncs.main()
    rows = [
        line for line in capsys.readouterr().out.splitlines() if line.count("|") > 4
    ]
    forward = {row.split("|")[1].strip() + row.split("|")[2]: row for row in rows[2:]}
    assert len(forward) == 9  # three models: no padding, padding, one train step
    for row in rows[2:]:
        cells = [cell.strip() for cell in row.split("|")[3:-1]]
        if "no padding" in row:  # encoderlib never waits on a batch without padding
            assert cells[0] == "0" and cells[1] == "0", row


def test_operator_count_counts_kernels_not_views():
    OperatorCount = load_script("operator_count").OperatorCount
    x = torch.ones(3)
    with OperatorCount() as counted:
        y = x.view(3, 1).t() + 1  # a view, a view, an add
        y.to(torch.float32)  # its own dtype: no copy
        y.to(torch.float64)  # a copy
    assert counted.n == 2
    assert counted.by_name == {"add": 1, "_to_copy": 1}
    assert load_script("operator_count").most(counted, 1) in ("add×1", "_to_copy×1")


def test_operator_count_prints_a_row_per_model_and_batch(capsys, monkeypatch):
    operator_count = load_script("operator_count")
    monkeypatch.setattr(sys, "argv", ["operator_count.py", "--quick", "--top", "3"])
    operator_count.main()
    lines = capsys.readouterr().out.splitlines()
    rows = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in lines
        if line.startswith("| ") and "---" not in line
    ][1:]
    tops = [line for line in lines if line.startswith("  ")]
    assert len(tops) == 2 * len(rows)  # each side's three most dispatched
    assert all(line.count("×") == 3 for line in tops), tops
    assert [row[0] for row in rows] == [
        name for name in operator_count.MODELS for _ in range(2)
    ]
    for _, _, ours, theirs, ratio in rows:
        assert int(ours) > 0 and int(theirs) > 0
        assert float(ratio) == pytest.approx(int(ours) / int(theirs), abs=0.006)


def test_operator_count_with_the_mask_on_the_device_takes_the_padded_path(
    capsys, monkeypatch
):
    # With the mask on the device encoderlib reads none of it: the padded path,
    # whose count does not change with the padding, unlike the packed path's.
    operator_count = load_script("operator_count")
    counts = {}
    for flag in ([], ["--mask-on-device"]):
        monkeypatch.setattr(sys, "argv", ["operator_count.py", "--quick", *flag])
        operator_count.main()
        out = capsys.readouterr().out
        rows = [line.split("|") for line in out.splitlines() if line[:2] == "| "]
        counts[bool(flag)] = [int(row[3]) for row in rows[1:]]  # after the header
        assert ("the mask on the device" in out) == bool(flag)
    padded, packed = counts[True], counts[False]
    assert padded[0::2] == padded[1::2]  # one sentence or a padded batch: same path
    assert padded != packed


def test_operator_count_host_time_adds_three_columns(capsys, monkeypatch):
    operator_count = load_script("operator_count")
    monkeypatch.setattr(
        sys, "argv", ["operator_count.py", "--quick", "--mask-on-device", "--host-time"]
    )
    operator_count.main()
    rows = [
        [cell.strip() for cell in line.split("|")[1:-1]]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ") and "---" not in line
    ]
    assert rows[0][5:] == ["host ms, encoderlib", "Hugging Face", "ratio"]
    for row in rows[1:]:
        ours, theirs, ratio = map(float, row[5:])
        assert ours > 0 and theirs > 0
        # All three are printed to 2 decimals; at the quick run's fractions of a
        # millisecond the printed times' own rounding moves their ratio by more.
        rounding = 0.005 * (1 + ratio) / (theirs - 0.005) + 0.005
        assert abs(ratio - ours / theirs) <= rounding
    monkeypatch.setattr(
        sys, "argv", ["operator_count.py", "--device", "cuda", "--host-time"]
    )
    with pytest.raises(SystemExit):  # the host's dispatch is measured on the CPU
        operator_count.main()


def test_gpu_checks_script_parses_and_names_files_that_exist():
    # The script runs only on a lent GPU machine; here: its syntax, and that every
    # test file, benchmark and study it names is still there under that name.
    script = ROOT / "benchmarks" / "gpu_checks.sh"
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0
    text = script.read_text(encoding="utf-8")
    paths = set(re.findall(r"(?:tests|benchmarks)/[\w/]+\.py", text))
    modules = set(re.findall(r"-m (studies\.\w+)", text))
    assert len(paths) >= 7 and len(modules) == 2
    for path in paths:
        assert (ROOT / path).is_file(), path
    for module in modules:
        assert (ROOT / (module.replace(".", "/") + ".py")).is_file(), module


def test_gpu_checks_run_every_test_marked_cuda():
    # A GPU machine is lent for minutes: a CUDA test that gpu_checks.sh does not
    # select goes unrun. Its pytest calls select by the one marker, and every test
    # file that uses the marker is named in the script; no test skips itself
    # without CUDA another way, which `-m cuda` would not see.
    text = (ROOT / "benchmarks" / "gpu_checks.sh").read_text(encoding="utf-8")
    calls = [line for line in text.splitlines() if "python3 -m pytest" in line]
    assert calls and all("-m cuda" in line and " -k " not in line for line in calls)
    marked = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        source = path.read_text(encoding="utf-8")
        assert not re.search(r"skipif\(\s*not torch\.cuda\.is_available", source), (
            f"{path.name}: mark CUDA tests @pytest.mark.cuda (tests/conftest.py skips "
            "them without a GPU)"
        )
        if "pytest.mark.cuda" in source:
            marked.append(path.name)
            assert f"tests/{path.name}" in text, f"gpu_checks.sh never runs {path.name}"
    assert len(marked) >= 8  # the packed path, syncs, graphs, families, ...


@pytest.fixture(scope="module")
def gpu_speed_output():
    gpu_speed = load_script("gpu_speed")
    argv = sys.argv
    sys.argv = ["gpu_speed.py", "--quick"]
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            gpu_speed.main()
    finally:
        sys.argv = argv
    rows = [
        line.split("|")
        for line in buffer.getvalue().splitlines()
        if line.startswith("| ") and line.count("|") == 17
    ]
    return gpu_speed, buffer.getvalue(), rows[1:]  # without the header row


def test_gpu_speed_quick_run_prints_a_full_table(gpu_speed_output):
    gpu_speed, out, rows = gpu_speed_output
    seen = [(cells[1].strip(), cells[2].strip(), cells[3].strip()) for cells in rows]
    expected = [
        (model, row.label, str(row.batch))
        for model in gpu_speed.MODELS
        for row in gpu_speed.rows_for(quick=True)
    ]
    assert seen == expected
    assert all(float(cells[9]) > 0 and float(cells[10]) > 0 for cells in rows)
    assert all(float(cells[12]) > 0 and cells[15].strip() == "0" for cells in rows)
    assert "device: CPU" in out and "transformers" in out and "TFLOP/s" in out
    training = [line for line in out.splitlines() if line.count("|") == 5]
    assert [line.split("|")[1].strip() for line in training[2:]] == list(
        gpu_speed.MODELS
    )
    assert all(float(line.split("|")[4]) > 0 for line in training[2:])


def test_gpu_speed_fp32_vectors_equal_hugging_face(gpu_speed_output):
    _, _, rows = gpu_speed_output
    fp32 = [cells for cells in rows if cells[4].strip() == "fp32"]
    assert fp32 and all(float(cells[16]) < 1e-5 for cells in fp32)


def test_gpu_speed_counts_the_rows_inside_the_goals(gpu_speed_output):
    gpu_speed, out, _ = gpu_speed_output
    assert "- fp32 vectors within 1e-5 of Hugging Face's: 12/12" in out
    f32, f16 = torch.float32, torch.float16
    results = [
        (1, f32, 0.9, 0.3, 0.0),  # batch 1: eager and graphed inside 1.0
        (32, f16, 0.85, 0.2, 1e-3),  # graphed only
        (256, f32, 0.79, 1.1, 2e-5),  # eager only; fp32 too far from HF
        (256, f16, 0.9, 0.81, 0.0),  # neither
    ]
    assert gpu_speed.goal_lines(results, [0.84, 0.95]) == [
        "Inside the goals (rows that meet it / rows):",
        "- batches above 1 (32, 256), ratio <= 0.8: eager 1/3, graphed 1/3, either 2/3",
        "- batch 1, ratio <= 1.0: eager 1/1, graphed 1/1, either 1/1",
        "- training step, ratio <= 0.9: 1/2",
        "- fp32 vectors within 1e-5 of Hugging Face's: 1/2",
    ]


def test_gpu_speed_batches_are_fixed_sorted_and_in_bounds():
    gpu_speed = load_script("gpu_speed")
    row = gpu_speed.Row("long", 4, 10)
    first = gpu_speed.make_batches(row, torch.device("cpu"))
    again = gpu_speed.make_batches(row, torch.device("cpu"))
    assert all(torch.equal(a[0], b[0]) for a, b in zip(first, again, strict=True))
    lengths = [int(n) for _, mask, _ in first for n in mask.sum(1)]
    assert lengths == sorted(lengths, reverse=True)
    assert all(30 <= n <= 128 for n in lengths)


def test_gpu_speed_prints_n_a_where_torch_compile_fails(monkeypatch, capsys):
    gpu_speed = load_script("gpu_speed")

    def fail(*args, **kwargs):
        raise RuntimeError("no compiler")

    monkeypatch.setattr(torch, "compile", fail)
    sides = {"theirs": torch.nn.Identity()}
    assert gpu_speed.compiled(sides, [], on_cuda=False) is None
    assert gpu_speed.compiled(sides, [], on_cuda=False) is None  # not retried
    assert capsys.readouterr().out.count("n/a") == 1


def test_gpu_speed_full_run_stops_without_cuda(monkeypatch, capsys):
    gpu_speed = load_script("gpu_speed")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(sys, "argv", ["gpu_speed.py"])
    gpu_speed.main()
    assert "no CUDA device" in capsys.readouterr().out


def test_short_text_cost_parts_run_on_the_batches_encode_makes():
    """The timed parts tokenize, run the model and do the products on real tokens."""
    short_text_cost = load_script("short_text_cost")
    model = short_text_cost.minilm_speed.load_minilm()
    texts = short_text_cost.minilm_speed.docstring_texts("sentences", 40)
    calls = short_text_cost.parts(model, texts)
    assert list(calls) == [
        "tokenize",
        "model",
        "products",
        "products, torch kernel",
        "products prepacked",
        "attention core",
        "attention core, unfused",
    ]
    for call in calls.values():
        call()
    # the attention core's calls: equal-length blocks, every real token, every layer
    shapes = short_text_cost.attention_calls(calls["model"])
    real = sum(
        len(model.tokenizer.encode(t, max_length=model.max_length)) for t in texts
    )
    assert sum(b * n for b, _, n, _ in shapes) == real * model.model.config.n_layers
    assert len({n for _, _, n, _ in shapes}) < len(shapes)  # sentences share blocks
    assert short_text_cost.wall_ms(lambda: None) >= 0
    assert short_text_cost.cpu_ms(calls["tokenize"]) >= 0
    tokens = sum(len(model.tokenizer.encode(t, max_length=256)) for t in texts)
    with FlopCounterMode(display=False) as counter:
        calls["products"]()  # what the FLOP/s line divides by its time
    counted = counter.get_total_flops()
    assert short_text_cost.product_flops(model.model.config, tokens) == counted
    description = short_text_cost.minilm_speed.cpu_description()
    assert "torch kernels:" in description and "linear: " in description
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.is_file() and "cpu family" in cpuinfo.read_text(errors="replace"):
        assert ", family " in description and " model " in description  # x86 Linux


def test_linear_kernels_finds_where_onednn_starts_to_win(capsys, monkeypatch):
    linear_kernels = load_script("linear_kernels")
    shape = ("toy", 10, 10)  # work = rows · 100
    results = {shape: {1: (1.0, 2.0), 4: (1.0, 0.9), 8: (1.0, 1.1), 16: (1.0, 0.5)}}
    assert linear_kernels.crossover(results) == 1600  # 8 rows lost: 16 rows on
    results[shape][8] = (1.0, 0.8)
    assert linear_kernels.crossover(results) == 400
    results[shape][16] = (1.0, 1.5)  # the largest lost: nothing measured is past it
    assert linear_kernels.crossover(results) == 1601
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, "argv", ["linear_kernels.py", "--quick"])
    try:
        linear_kernels.main()
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "| MiniLM | 384 → 1152 |" in out and "multiply-adds" in out


def test_gpu_graphs_quick_run_prints_a_full_table(capsys):
    gpu_graphs = load_script("gpu_graphs")
    argv = sys.argv
    sys.argv = ["gpu_graphs.py", "--quick"]
    try:
        gpu_graphs.main()
    finally:
        sys.argv = argv
    rows = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| ") and line.count("|") == 12
    ][1:]
    assert len(rows) == 3 * 4  # three models, the four quick rows
    assert all(float(cells[4]) > 0 and float(cells[5]) > 0 for cells in rows)
    assert all(float(cells[10]) < 1e-5 for cells in rows)  # fp32, to Hugging Face


def test_int8_products_agree_and_print_a_full_table(capsys, monkeypatch):
    int8_products = load_script("int8_products")
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, "argv", ["int8_products.py", "--quick"])
    try:
        int8_products.main()
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    rows = [line.split("|") for line in out.splitlines() if line.startswith("| 384 ")]
    rows += [line.split("|") for line in out.splitlines() if line.startswith("| 1536 ")]
    assert len(rows) == 4 and all(cells[-2].strip() == "yes" for cells in rows)
    assert all(float(cells[i]) > 0 for cells in rows for i in (2, 3, 5))
    assert "Int8Weight's choice here: " in out
