"""Bad input to chapter 10's names (encoderlib.data, .training, .viz): clear errors.

Each case feeds one class of bad input a reader meets (wrong Python types, float64
batches for a float32 model, wrong shapes and sizes, empty inputs, out-of-range
settings and seeds) and expects a TypeError or ValueError whose message names what
was expected and what was received, never an error from deep inside torch, tqdm,
datasets or matplotlib, a wrong result or NaN.
"""

import math

import datasets
import matplotlib
import pytest
import torch
from torch import nn

from encoderlib import WordPieceTokenizer
from encoderlib.data import (
    PaddingCollator,
    data_loader,
    load_text_classification,
    make_word_order_dataset,
    restrict_vocabulary,
    tokenize_dataset,
    word_order_mirror,
    word_order_sentence,
)
from encoderlib.training import (
    TrainingHistory,
    learning_rate_factor,
    parameter_groups,
    progress_bar,
    train,
)
from encoderlib.viz import plot_training_history

matplotlib.use("Agg")

TOKENIZER = WordPieceTokenizer(
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "dog", "cat", "sat", "##s"]
)
TEXTS = datasets.Dataset.from_dict(
    {"text": ["the dog", "the cats sat"], "label": [0, 1]}
)
COLLATE = PaddingCollator(0)


def net() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))


def mse(model: nn.Module, batch) -> torch.Tensor:
    x, y = batch
    return (model(x).squeeze(-1) - y).pow(2).mean()


BATCHES = [(torch.randn(8, 2), torch.randn(8))]


def fit(**options):
    options.setdefault("steps", 2)
    return train(net(), mse, BATCHES, progress=False, **options)


HISTORY = fit(steps=3)

CASES = {
    # --- word_order_sentence and word_order_mirror
    "sentence: None for a word": (
        lambda: word_order_sentence(None, "bit", "judge"),
        TypeError,
        "expected agent as a str, got NoneType",
    ),
    "sentence: passive as a str": (
        lambda: word_order_sentence("dog", "bit", "judge", "yes"),
        TypeError,
        "expected passive as a bool, got str",
    ),
    "sentence: passive of a verb without a participle": (
        lambda: word_order_sentence("dog", "ate", "judge", True),
        ValueError,
        "expected a verb of WORD_ORDER_VERBS for the passive.*got 'ate'",
    ),
    "mirror: a list": (
        lambda: word_order_mirror(["the", "dog"]),
        TypeError,
        "expected text as a str, got list",
    ),
    "mirror: no person": (
        lambda: word_order_mirror("the dog chased the cat"),
        ValueError,
        "expected one animal and one person in the sentence, got 'the dog",
    ),
    "mirror: empty": (
        lambda: word_order_mirror(""),
        ValueError,
        "expected one animal and one person in the sentence, got ''",
    ),
    # --- make_word_order_dataset
    "dataset: n_train as a str": (
        lambda: make_word_order_dataset(n_train="5"),
        TypeError,
        "expected n_train as an int, got '5'",
    ),
    "dataset: n_test as a float": (
        lambda: make_word_order_dataset(n_test=1.5),
        TypeError,
        "expected n_test as an int, got 1.5",
    ),
    "dataset: negative size": (
        lambda: make_word_order_dataset(n_train=-1),
        ValueError,
        "expected n_train >= 0, got -1",
    ),
    "dataset: seed beyond torch's range": (
        lambda: make_word_order_dataset(seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "dataset: seed as a str": (
        lambda: make_word_order_dataset(seed="0"),
        TypeError,
        "expected seed as an int, got '0'",
    ),
    "dataset: passive as a bool": (
        lambda: make_word_order_dataset(passive=True),
        TypeError,
        "expected passive as a float in \\[0, 1\\], got True",
    ),
    "dataset: passive NaN": (
        lambda: make_word_order_dataset(passive=math.nan),
        ValueError,
        r"expected passive in \[0, 1\], got nan",
    ),
    "dataset: too many sentences": (
        lambda: make_word_order_dataset(n_train=10**6),
        ValueError,
        "expected at most 34,992 sentences in all, got n_train=1000000",
    ),
    # --- load_text_classification
    "load: name None": (
        lambda: load_text_classification(None),
        TypeError,
        "expected name as a str, one of .*got None",
    ),
    "load: unknown name": (
        lambda: load_text_classification("mnist"),
        ValueError,
        "expected name in .*got 'mnist'",
    ),
    "load: path as an int": (
        lambda: load_text_classification("sst2", path=5),
        TypeError,
        "expected path as a str or Path, got int",
    ),
    "load: verbose as a str": (
        lambda: load_text_classification("word_order", verbose="no"),
        TypeError,
        "expected verbose as a bool, got 'no'",
    ),
    "load: a path for the made task": (
        lambda: load_text_classification("word_order", path="x", verbose=False),
        ValueError,
        "the word-order task is made, not loaded: drop path=",
    ),
    # --- restrict_vocabulary
    "restrict: texts None": (
        lambda: restrict_vocabulary(TOKENIZER, None),
        TypeError,
        "expected a list of str, got NoneType",
    ),
    "restrict: one str": (
        lambda: restrict_vocabulary(TOKENIZER, "the dog"),
        TypeError,
        "expected a list of str, got a single str",
    ),
    "restrict: a non-str text": (
        lambda: restrict_vocabulary(TOKENIZER, ["the dog", 7]),
        TypeError,
        "expected texts of str, got int at 1",
    ),
    "restrict: not a WordPiece tokenizer": (
        lambda: restrict_vocabulary(None, ["the dog"]),
        TypeError,
        "expected a WordPieceTokenizer, got NoneType",
    ),
    "restrict: keep_characters as a str": (
        lambda: restrict_vocabulary(TOKENIZER, ["a"], keep_characters="yes"),
        TypeError,
        "expected keep_characters as a bool, got 'yes'",
    ),
    # --- tokenize_dataset
    "tokenize: a list, not a Dataset": (
        lambda: tokenize_dataset([{"text": "the dog"}], TOKENIZER),
        TypeError,
        "expected a datasets.Dataset, got list",
    ),
    "tokenize: a DatasetDict": (
        lambda: tokenize_dataset(datasets.DatasetDict({"train": TEXTS}), TOKENIZER),
        TypeError,
        "expected a datasets.Dataset, got DatasetDict.*pass one split",
    ),
    "tokenize: tokenizer None": (
        lambda: tokenize_dataset(TEXTS, None),
        TypeError,
        r"expected a chapter-2 tokenizer \(with .encode\), got NoneType",
    ),
    "tokenize: max_length as a str": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, max_length="8"),
        TypeError,
        "expected max_length as an int, got '8'",
    ),
    "tokenize: max_length too small": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, max_length=1),
        ValueError,
        r"expected max_length >= 2 \(\[CLS\] and \[SEP\]\), got 1",
    ),
    "tokenize: keep_columns as one str": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, keep_columns="label"),
        TypeError,
        "expected keep_columns as a list of column names, got 'label'",
    ),
    "tokenize: a missing column": (
        lambda: tokenize_dataset(TEXTS, TOKENIZER, text_column="sentence"),
        ValueError,
        "expected a column 'sentence', got columns",
    ),
    "tokenize: a text that is not a str": (
        lambda: tokenize_dataset(
            datasets.Dataset.from_dict({"text": [1, 2], "label": [0, 1]}), TOKENIZER
        ),
        TypeError,
        "expected text as a str, got int",
    ),
    # --- PaddingCollator
    "collator: pad id as a float": (
        lambda: PaddingCollator(0.0),
        TypeError,
        "expected pad_token_id as an int, got 0.0",
    ),
    "collator: negative pad id": (
        lambda: PaddingCollator(-1),
        ValueError,
        "expected pad_token_id >= 0, got -1",
    ),
    "collator: label_key not a str": (
        lambda: PaddingCollator(0, label_key=5),
        TypeError,
        "expected label_key as a str, got 5",
    ),
    "collator: None for the examples": (
        lambda: COLLATE(None),
        TypeError,
        "expected a list of examples, got NoneType",
    ),
    "collator: b = 0": (
        lambda: COLLATE([]),
        ValueError,
        "expected at least one example, got an empty batch",
    ),
    "collator: ids as a str": (
        lambda: COLLATE([{"input_ids": "2 5 3"}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got '2 5 3'",
    ),
    "collator: float ids": (
        lambda: COLLATE([{"input_ids": [2, 5.5, 3]}]),
        TypeError,
        "expected input_ids at index 0 as a list of ints, got float 5.5 in it",
    ),
    "collator: float tensor ids": (
        lambda: COLLATE([{"input_ids": torch.tensor([2.0, 3.0])}]),
        TypeError,
        "expected input_ids at index 0 as integers, got dtype torch.float32",
    ),
    "collator: 2-D tensor ids": (
        lambda: COLLATE([{"input_ids": torch.tensor([[2, 3]])}]),
        ValueError,
        r"expected input_ids at index 0 of shape \(n,\), got \(1, 2\)",
    ),
    "collator: negative id": (
        lambda: COLLATE([{"input_ids": [2, -7, 3]}]),
        ValueError,
        "expected input_ids >= 0, got -7 at index 0",
    ),
    "collator: a label that is a str": (
        lambda: COLLATE([{"input_ids": [2, 3], "label": "positive"}]),
        TypeError,
        "expected 'label' as an int class id, got 'positive' at index 0",
    ),
    "collator: a label missing from one example": (
        lambda: COLLATE([{"input_ids": [2], "label": 1}, {"input_ids": [2]}]),
        ValueError,
        "expected every example to have 'label', as the first does; index 1",
    ),
    "collator: segment ids of another length": (
        lambda: COLLATE([{"input_ids": [2, 5, 3], "token_type_ids": [0, 0]}]),
        ValueError,
        r"expected token_type_ids as long as input_ids \(3\) at index 0, got 2",
    ),
    # --- data_loader
    "loader: None for the data": (
        lambda: data_loader(None, COLLATE),
        TypeError,
        "expected a dataset with len.. and indexing .*got NoneType",
    ),
    "loader: collate_fn not callable": (
        lambda: data_loader([1, 2], "pad"),
        TypeError,
        "expected collate_fn as a callable, got 'pad'",
    ),
    "loader: batch_size as a str": (
        lambda: data_loader([1, 2], COLLATE, batch_size="8"),
        TypeError,
        "expected batch_size as an int, got '8'",
    ),
    "loader: batch_size 0": (
        lambda: data_loader([1, 2], COLLATE, batch_size=0),
        ValueError,
        "expected batch_size >= 1, got 0",
    ),
    "loader: shuffle as a str": (
        lambda: data_loader([1, 2], COLLATE, shuffle="yes"),
        TypeError,
        "expected shuffle as a bool, got 'yes'",
    ),
    "loader: seed beyond torch's range": (
        lambda: data_loader([1, 2], COLLATE, seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    # --- progress_bar
    "bar: an int to iterate": (
        lambda: progress_bar(5),
        TypeError,
        r"expected an iterable \(or None\), got int",
    ),
    "bar: desc as an int": (
        lambda: progress_bar(range(3), desc=5),
        TypeError,
        "expected desc as a str, got int",
    ),
    "bar: negative total": (
        lambda: progress_bar(total=-1),
        ValueError,
        "expected total >= 0, got -1",
    ),
    "bar: disable as a str": (
        lambda: progress_bar(range(3), disable="no"),
        TypeError,
        "expected disable as a bool, got 'no'",
    ),
    # --- TrainingHistory
    "history: steps as an int": (
        lambda: TrainingHistory(steps=5),
        TypeError,
        "expected steps as a list, got int",
    ),
    "history: one loss too few": (
        lambda: TrainingHistory(steps=[1, 2], losses=[0.5], learning_rates=[0.1] * 2),
        ValueError,
        r"expected losses with one entry per step \(2\), got 1",
    ),
    "history: an evaluation without its step": (
        lambda: TrainingHistory(evaluations=[{"accuracy": 0.5}]),
        TypeError,
        "expected evaluations as dicts with a 'step'",
    ),
    "history: an unknown metric": (
        lambda: HISTORY.metric("accuracy"),
        ValueError,
        r"no evaluation metric 'accuracy'; recorded: \[\]",
    ),
    "history: a metric name that is not a str": (
        lambda: HISTORY.metric(0),
        TypeError,
        "expected the metric's name as a str, got 0",
    ),
    "history: the final loss of nothing": (
        lambda: TrainingHistory().final_loss,
        ValueError,
        "the history is empty: no step was taken",
    ),
    # --- parameter_groups
    "groups: a list of tensors": (
        lambda: parameter_groups([torch.zeros(2)], 0.01),
        TypeError,
        "expected an nn.Module, got list",
    ),
    "groups: weight decay as a str": (
        lambda: parameter_groups(net(), "0.01"),
        TypeError,
        "expected weight_decay as a number, got '0.01'",
    ),
    "groups: negative weight decay": (
        lambda: parameter_groups(net(), -0.01),
        ValueError,
        r"expected weight_decay in \[0.0, inf\], got -0.01",
    ),
    "groups: NaN weight decay": (
        lambda: parameter_groups(net(), math.nan),
        ValueError,
        r"expected weight_decay in \[0.0, inf\], got nan",
    ),
    # --- learning_rate_factor
    "schedule: step as a str": (
        lambda: learning_rate_factor("1", 10, 2),
        TypeError,
        "expected step as an int >= 0, got '1'",
    ),
    "schedule: negative step": (
        lambda: learning_rate_factor(-1, 10, 2),
        ValueError,
        "expected step as an int >= 0, got -1",
    ),
    "schedule: no steps at all": (
        lambda: learning_rate_factor(0, 0, 0),
        ValueError,
        "expected total_steps as an int >= 1, got 0",
    ),
    "schedule: fractional warm-up": (
        lambda: learning_rate_factor(0, 10, 1.5),
        TypeError,
        "expected warmup_steps as an int, got 1.5",
    ),
    "schedule: warm-up beyond the run": (
        lambda: learning_rate_factor(0, 10, 11),
        ValueError,
        r"expected warmup_steps in \[0, total_steps=10\], got 11",
    ),
    "schedule: name None": (
        lambda: learning_rate_factor(0, 10, 1, None),
        TypeError,
        "expected schedule as a str, got None",
    ),
    "schedule: unknown name": (
        lambda: learning_rate_factor(0, 10, 1, "step"),
        ValueError,
        "expected schedule in .*got 'step'",
    ),
    "schedule: floor as a str": (
        lambda: learning_rate_factor(0, 10, 1, "cosine", "0.1"),
        TypeError,
        "expected min_factor as a number, got '0.1'",
    ),
    "schedule: NaN floor": (
        lambda: learning_rate_factor(0, 10, 1, "cosine", math.nan),
        ValueError,
        r"expected min_factor in \[0.0, 1.0\], got nan",
    ),
    # --- train
    "train: model None": (
        lambda: train(None, mse, BATCHES, steps=1),
        TypeError,
        "expected model as an nn.Module, got NoneType",
    ),
    "train: loss_fn not callable": (
        lambda: train(net(), "mse", BATCHES, steps=1),
        TypeError,
        "expected loss_fn.model, batch. -> Tensor, got 'mse'",
    ),
    "train: data None": (
        lambda: train(net(), mse, None, steps=1),
        TypeError,
        "expected train_data as a re-iterable source of batches .*got NoneType",
    ),
    "train: no batch": (
        lambda: train(net(), mse, [], steps=1, progress=False),
        ValueError,
        "expected train_data with at least one batch, got none",
    ),
    "train: float64 batch for a float32 model": (
        lambda: train(
            net(), mse, [(torch.randn(8, 2).double(), torch.randn(8))], steps=1
        ),
        TypeError,
        r"expected floating-point tensors of the model's dtype torch.float32 in each "
        r"batch, got torch.float64 in batch\[0\]",
    ),
    "train: steps as a float": (
        lambda: fit(steps=2.5),
        TypeError,
        "expected steps as an int >= 1, got 2.5",
    ),
    "train: steps 0": (
        lambda: fit(steps=0),
        ValueError,
        "expected steps as an int >= 1, got 0",
    ),
    "train: lr as a str": (
        lambda: fit(lr="1e-3"),
        TypeError,
        "expected lr as a number, got '1e-3'",
    ),
    "train: negative lr": (
        lambda: fit(lr=-1e-3),
        ValueError,
        r"expected lr in \(0.0, inf\], got -0.001",
    ),
    "train: NaN lr": (
        lambda: fit(lr=math.nan),
        ValueError,
        r"expected lr in \(0.0, inf\], got nan",
    ),
    "train: negative weight decay": (
        lambda: fit(weight_decay=-1.0),
        ValueError,
        r"expected weight_decay in \[0.0, inf\], got -1.0",
    ),
    "train: betas as a str": (
        lambda: fit(betas="0.9"),
        TypeError,
        "expected betas as a pair of floats, got '0.9'",
    ),
    "train: beta of 1": (
        lambda: fit(betas=(0.9, 1.0)),
        ValueError,
        r"expected betas\[1\] in \[0, 1\), got 1.0",
    ),
    "train: NaN warm-up": (
        lambda: fit(steps=4, warmup=math.nan),
        ValueError,
        r"expected warmup in \[0, 4\] steps, got nan",
    ),
    "train: warm-up as a str": (
        lambda: fit(warmup="10%"),
        TypeError,
        "expected warmup as a number of steps or a fraction, got '10%'",
    ),
    "train: floor above 1": (
        lambda: fit(min_lr_factor=2.0),
        ValueError,
        r"expected min_lr_factor in \[0.0, 1.0\], got 2.0",
    ),
    "train: max_grad_norm as a str": (
        lambda: fit(max_grad_norm="1"),
        TypeError,
        "expected max_grad_norm as a number, got '1'",
    ),
    "train: max_grad_norm 0": (
        lambda: fit(max_grad_norm=0.0),
        ValueError,
        r"expected max_grad_norm in \(0.0, inf\], got 0.0",
    ),
    "train: accumulation 0": (
        lambda: fit(accumulation_steps=0),
        ValueError,
        "expected accumulation_steps as an int >= 1, got 0",
    ),
    "train: unknown precision": (
        lambda: fit(precision="fp8"),
        ValueError,
        "expected precision in .*got 'fp8'",
    ),
    "train: precision None": (
        lambda: fit(precision=None),
        TypeError,
        "expected precision as a str, got None",
    ),
    "train: fused as a str": (
        lambda: fit(fused="yes"),
        TypeError,
        "expected fused as a bool or None, got 'yes'",
    ),
    "train: a device that does not exist": (
        lambda: fit(device="gpu"),
        ValueError,
        "expected device as 'cpu', 'cuda', 'cuda:0', …, got 'gpu'",
    ),
    "train: device as an int": (
        lambda: fit(device=[0]),
        TypeError,
        r"expected device as a str or torch.device, got \[0\]",
    ),
    "train: seed beyond torch's range": (
        lambda: fit(seed=2**70),
        ValueError,
        r"expected seed in \[-2\*\*63, 2\*\*64\), got 1180591620717411303424",
    ),
    "train: progress as a str": (
        lambda: train(net(), mse, BATCHES, steps=1, progress="no"),
        TypeError,
        "expected progress as a bool, got 'no'",
    ),
    "train: desc None": (
        lambda: fit(desc=None),
        TypeError,
        "expected desc as a str, got NoneType",
    ),
    "train: eval_every 0": (
        lambda: fit(eval_fn=lambda m: {"a": 1.0}, eval_every=0),
        ValueError,
        "expected eval_every as an int >= 1, got 0",
    ),
    "train: an evaluation that is not a number": (
        lambda: fit(eval_fn=lambda m: {"accuracy": "high"}),
        TypeError,
        "expected eval_fn.model. to return a dict of floats, got 'high' for 'accuracy'",
    ),
    "train: a loss that is not a scalar": (
        lambda: train(net(), lambda m, b: m(b[0]), BATCHES, steps=1, progress=False),
        TypeError,
        r"expected loss_fn\(model, batch\) to return a scalar tensor, got Tensor of "
        r"shape \(8, 1\)",
    ),
    "train: nothing to train": (
        lambda: train(
            net().requires_grad_(False), mse, BATCHES, steps=1, progress=False
        ),
        ValueError,
        "the model has no parameter with requires_grad=True",
    ),
    # --- plot_training_history
    "plot: history None": (
        lambda: plot_training_history(None, title="x"),
        TypeError,
        r"expected a TrainingHistory \(what train returns\), got NoneType",
    ),
    "plot: title None": (
        lambda: plot_training_history(HISTORY, title=None),
        TypeError,
        "expected title as a str, got None",
    ),
    "plot: label as an int": (
        lambda: plot_training_history(HISTORY, title="x", label=3),
        TypeError,
        "expected label as a str or None, got 3",
    ),
    "plot: metrics as one str": (
        lambda: plot_training_history(HISTORY, title="x", metrics="loss"),
        TypeError,
        "expected metrics as a list of names, got the str 'loss'",
    ),
    "plot: an unrecorded metric": (
        lambda: plot_training_history(HISTORY, title="x", metrics=["f1"]),
        ValueError,
        r"no evaluation metric \['f1'\]; recorded: \[\]",
    ),
    "plot: smoothing as a float": (
        lambda: plot_training_history(HISTORY, title="x", smoothing=2.5),
        TypeError,
        "expected smoothing as an int >= 1, got 2.5",
    ),
    "plot: smoothing 0": (
        lambda: plot_training_history(HISTORY, title="x", smoothing=0),
        ValueError,
        "expected smoothing as an int >= 1, got 0",
    ),
    "plot: an empty history": (
        lambda: plot_training_history(TrainingHistory(), title="x"),
        ValueError,
        "the history is empty: nothing to plot",
    ),
    "plot: too few Axes": (
        lambda: plot_training_history(HISTORY, title="x", ax=[None]),
        ValueError,
        "expected 2 Axes, got 1",
    ),
    "plot: something else than Axes": (
        lambda: plot_training_history(HISTORY, title="x", ax=[1, 2]),
        TypeError,
        "expected matplotlib Axes in ax, got int",
    ),
}


@pytest.mark.parametrize(("call", "error", "message"), CASES.values(), ids=CASES)
def test_bad_input_raises_a_clear_error(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_missing_local_data_is_a_clear_file_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="expected a folder of parquet files"):
        load_text_classification("sst2", path=tmp_path / "absent", verbose=False)
    with pytest.raises(FileNotFoundError, match="expected parquet files under"):
        load_text_classification("sst2", path=tmp_path, verbose=False)


def test_small_integer_ids_are_read_as_ids_never_as_a_mask():
    expected = COLLATE([{"input_ids": [2, 5, 6, 3]}, {"input_ids": [2, 7, 3]}])
    for dtype in (torch.uint8, torch.int8, torch.int16, torch.int32):
        batch = COLLATE(
            [
                {"input_ids": torch.tensor([2, 5, 6, 3], dtype=dtype)},
                {"input_ids": torch.tensor([2, 7, 3], dtype=dtype)},
            ]
        )
        for key in ("input_ids", "attention_mask"):
            assert batch[key].dtype == torch.long
            assert torch.equal(batch[key], expected[key])  # integers


def test_empty_inputs_give_empty_results():
    empty = make_word_order_dataset(n_train=0, n_test=0)
    assert (len(empty["train"]), len(empty["test"])) == (0, 0)
    tokenized = tokenize_dataset(TEXTS.select([]), TOKENIZER)
    assert len(tokenized) == 0 and tokenized.column_names == ["label", "input_ids"]
    batch = COLLATE([{"input_ids": []}, {"input_ids": [2, 3]}])  # an empty example
    assert batch["input_ids"].shape == (2, 2)
    assert batch["attention_mask"].tolist() == [[0, 0], [1, 1]]
    assert restrict_vocabulary(TOKENIZER, []).vocab_size <= TOKENIZER.vocab_size


def test_the_edges_of_the_seed_range_are_accepted():
    for seed in (0, -(2**63), 2**64 - 1):
        data_loader([1, 2, 3], lambda rows: rows, seed=seed)
        train(net(), mse, BATCHES, steps=1, seed=seed, progress=False)
    assert len(make_word_order_dataset(n_train=4, n_test=2, seed=-1)["train"]) == 4


def test_the_schedule_after_the_run_stays_at_its_floor():
    assert learning_rate_factor(50, 10, 2, "cosine", 0.1) == pytest.approx(0.1)


def test_a_float64_model_trains_on_float64_batches():
    model = net().double()
    batches = [(torch.randn(8, 2, dtype=torch.float64), torch.randn(8).double())]
    history = train(model, mse, batches, steps=2, progress=False)
    assert all(math.isfinite(loss) for loss in history.losses)
