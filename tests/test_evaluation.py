"""`predict` and `evaluate` (chapter 10): batched, mode-preserving, exact metrics.

The logits equal one forward pass over the same batch; texts are tokenized in
batches by any tokenizer with encoderlib's interface (a duck-typed one here);
accuracy, macro F1 and loss equal scikit-learn's and torch's; every submodule's
train/eval mode comes back as it was; and `evaluate` fits `train`'s eval_fn.
"""

import pytest
import torch
import torch.nn.functional as F
from sklearn.metrics import accuracy_score, f1_score
from tiny_bert import DuckTokenizer

from encoderlib.data import PaddingCollator, data_loader
from encoderlib.encoder import Encoder, EncoderConfig
from encoderlib.evaluation import classification_metrics, evaluate, predict
from encoderlib.heads import EncoderClassifier
from encoderlib.tokenization import WordPieceTokenizer
from encoderlib.training import train

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "a", "dog", "bit", "man", "the"]
TEXTS = ["a dog bit a man", "the man bit the dog", "a dog", "man", "the the a"] * 3
LABELS = [0, 1, 0, 1, 2] * 3


def duck_tokenizer() -> DuckTokenizer:
    return DuckTokenizer(WordPieceTokenizer(VOCAB))


def classifier(n_classes: int = 3, **changes) -> EncoderClassifier:
    torch.manual_seed(0)
    config = EncoderConfig(
        vocab_size=len(VOCAB),
        d_model=32,
        n_heads=2,
        n_layers=2,
        d_ff=64,
        max_len=64,
        dropout=0.1,
        **changes,
    )
    return EncoderClassifier(Encoder(config), n_classes, "mean", copy=False)


def test_predict_equals_one_forward_pass_in_every_form():
    model, tokenizer = classifier(), duck_tokenizer()
    batch = tokenizer(TEXTS)
    with torch.no_grad():
        expected = model.eval()(batch["input_ids"], batch["attention_mask"])
    model.train()
    for got in (
        predict(model, TEXTS, tokenizer=tokenizer, batch_size=4),
        predict(model, batch, batch_size=6),  # one padded batch, cut in rows
        predict(model, [batch]),  # an iterable of batches, used as it comes
    ):
        assert got.shape == (15, 3) and got.dtype == torch.float32
        assert torch.allclose(got, expected, atol=1e-5)
    labels = predict(model, TEXTS, tokenizer=tokenizer, output="labels")
    assert labels.dtype == torch.long and torch.equal(labels, expected.argmax(-1))
    probabilities = predict(model, batch, output="probabilities")
    assert torch.allclose(probabilities, expected.softmax(-1), atol=1e-6)


def test_predict_restores_every_submodule_mode_and_keeps_no_graph():
    model = classifier()
    model.train()
    model.head.eval()  # a mixed state must come back as it was
    before = [module.training for module in model.modules()]
    logits = predict(model, TEXTS, tokenizer=duck_tokenizer())
    assert [module.training for module in model.modules()] == before
    assert not logits.requires_grad


def test_pairs_get_token_type_ids():
    model, tokenizer = classifier(), duck_tokenizer()
    pairs = [("a dog", "bit a man"), ("the man", "a dog")]
    batch = tokenizer(pairs)
    with torch.no_grad():
        expected = model.eval()(
            batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]
        )
    got = predict(model, pairs, tokenizer=tokenizer, batch_size=1)
    assert torch.allclose(got, expected, atol=1e-5)
    as_lists = [list(pair) for pair in pairs]  # as a cross-encoder takes them
    got = predict(model, as_lists, tokenizer=tokenizer, batch_size=1)
    assert torch.allclose(got, expected, atol=1e-5)


def test_metrics_equal_scikit_learn_and_torch():
    torch.manual_seed(1)
    logits, labels = torch.randn(40, 4), torch.randint(0, 4, (40,))
    labels[labels == 3] = 2  # class 3 never true; predicted or not, as sklearn counts
    metrics = classification_metrics(logits, labels)
    predicted = logits.argmax(-1).numpy()
    assert metrics["accuracy"] == pytest.approx(accuracy_score(labels, predicted))
    assert metrics["macro_f1"] == pytest.approx(
        f1_score(labels, predicted, average="macro"), abs=1e-12
    )
    assert metrics["loss"] == pytest.approx(F.cross_entropy(logits, labels).item())
    assert all(type(value) is float for value in metrics.values())


def test_evaluate_reads_labels_from_batches_or_the_argument():
    model, tokenizer = classifier(), duck_tokenizer()
    collate = PaddingCollator(tokenizer.pad_token_id)
    rows = [
        {"input_ids": tokenizer.encode(text), "label": label}
        for text, label in zip(TEXTS, LABELS, strict=True)
    ]
    loader = data_loader(rows, collate, batch_size=4, shuffle=False)
    from_texts = evaluate(model, TEXTS, labels=LABELS, tokenizer=tokenizer)
    from_loader = evaluate(model, loader, show_progress_bar=False)
    from_tensor = evaluate(
        model, TEXTS, labels=torch.tensor(LABELS), tokenizer=tokenizer, batch_size=7
    )
    np = pytest.importorskip("numpy")  # labels as scikit-learn and datasets give them
    from_array = evaluate(model, TEXTS, labels=np.array(LABELS), tokenizer=tokenizer)
    numpy_ints = [np.int64(label) for label in LABELS]
    from_numpy_ints = evaluate(model, TEXTS, labels=numpy_ints, tokenizer=tokenizer)
    for other in (from_loader, from_tensor, from_array, from_numpy_ints):
        for key in ("accuracy", "macro_f1", "loss"):
            assert other[key] == pytest.approx(from_texts[key], abs=1e-6)


def test_evaluate_is_an_eval_fn_for_train_and_a_trained_model_scores_well():
    model, tokenizer = classifier(n_classes=2), duck_tokenizer()
    texts = ["a dog bit a man", "the man bit the dog"] * 8
    labels = [0, 1] * 8
    batch = {**tokenizer(texts), "labels": torch.tensor(labels)}

    def loss_fn(model, batch):
        logits = model(batch["input_ids"], batch["attention_mask"])
        return F.cross_entropy(logits, batch["labels"])

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny model: one thread is the fastest
    try:
        history = train(
            model,
            loss_fn,
            [batch],
            steps=30,
            lr=3e-3,
            seed=0,
            progress=False,
            device="cpu",
            eval_fn=lambda model: evaluate(model, [batch]),
            eval_every=10,
        )
    finally:
        torch.set_num_threads(threads)
    assert [e["step"] for e in history.evaluations] == [10, 20, 30]
    final = history.evaluations[-1]
    assert final["accuracy"] == 1.0 and final["macro_f1"] == 1.0
    assert final["loss"] < history.evaluations[0]["loss"]


def test_max_length_defaults_to_the_models_limit():
    model, tokenizer = classifier(), duck_tokenizer()  # 64 positions
    long_text = " ".join(["a dog"] * 600)
    logits = predict(model, [long_text], tokenizer=tokenizer)  # cut, not refused
    assert logits.shape == (1, 3)


def test_max_length_leaves_out_the_positions_before_the_offset():
    model, tokenizer = classifier(position_offset=2), duck_tokenizer()
    logits = predict(model, [" ".join(["a dog"] * 600)], tokenizer=tokenizer)
    assert logits.shape == (1, 3)  # 62 tokens: 64 positions less RoBERTa's 2


def test_predict_makes_the_device_wait_in_no_batch():
    from encoderlib.checks import count_host_reads

    model, tokenizer = classifier(), duck_tokenizer()
    batch = tokenizer(["a dog bit a man", "the man bit the dog", "a man bit a dog"])
    assert bool(batch["attention_mask"].all())  # no padding: the encoder reads nothing
    with count_host_reads() as reads:
        predict(model, batch, batch_size=1)  # three batches
    assert reads == []


def test_a_pretrained_folders_tokenizer_goes_through_predict_and_the_collators(
    tmp_path,
):
    # A byte-level BPE (RoBERTa's) tokenizer.json, read by encoderlib's
    # PretrainedTokenizer (chapter 2), feeds predict, tokenize_dataset and
    # MLMCollator: they check the interface, not the class.
    import datasets

    pretrained_tokenizer = pytest.importorskip("encoderlib.pretrained_tokenizer")
    files = pytest.importorskip("pretrained_tokenizer_files")
    from encoderlib.data import tokenize_dataset
    from encoderlib.mlm import MLMCollator

    folder = files.save_family("roberta", tmp_path / "roberta")
    tokenizer = pretrained_tokenizer.PretrainedTokenizer.from_folder(folder)
    torch.manual_seed(0)
    config = EncoderConfig.tiny(vocab_size=tokenizer.vocab_size)
    model = EncoderClassifier(Encoder(config), 2, "mean", copy=False)
    texts = ["a cat sat on the mat", "the dog ran far away"]
    batch = tokenizer(texts)
    with torch.no_grad():
        expected = model.eval()(batch["input_ids"], batch["attention_mask"])
    assert torch.allclose(
        predict(model, texts, tokenizer=tokenizer), expected, atol=1e-5
    )
    rows = datasets.Dataset.from_dict({"text": texts, "label": [0, 1]})
    tokenized = tokenize_dataset(rows, tokenizer, max_length=8)
    assert tokenized[0]["input_ids"] == tokenizer.encode(texts[0], max_length=8)
    masked = MLMCollator(tokenizer, seed=0)(list(tokenized))
    assert masked["input_ids"].shape == masked["labels"].shape
