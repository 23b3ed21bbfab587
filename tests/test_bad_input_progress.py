"""Bad input to encoderlib.progress (chapter 10): the progress bar and the history.

Each case expects a TypeError or ValueError worded by encoderlib.checks, never
an error from inside tqdm.
"""

from bad_input import flag_cases, sweep

from encoderlib.progress import TrainingHistory, progress_bar

HISTORY = TrainingHistory(steps=[1, 2, 3], losses=[0.7, 0.6, 0.5],
                          learning_rates=[1e-3] * 3)  # fmt: skip

CASES = {
    "ch10 progress_bar: an int to iterate": (
        lambda: progress_bar(5),
        TypeError,
        r"expected an iterable \(or None\), got int",
    ),
    "ch10 progress_bar: desc as an int": (
        lambda: progress_bar(range(3), desc=5),
        TypeError,
        "expected desc as a str, got int",
    ),
    "ch10 progress_bar: negative total": (
        lambda: progress_bar(total=-1),
        ValueError,
        "expected total as an int >= 0, got \\-1",
    ),
    "ch10 TrainingHistory: steps as an int": (
        lambda: TrainingHistory(steps=5),
        TypeError,
        "expected steps as a list, got int",
    ),
    "ch10 TrainingHistory: one loss too few": (
        lambda: TrainingHistory(steps=[1, 2], losses=[0.5], learning_rates=[0.1] * 2),
        ValueError,
        r"expected losses with one entry per step \(2\), got 1",
    ),
    "ch10 TrainingHistory: an evaluation without its step": (
        lambda: TrainingHistory(evaluations=[{"accuracy": 0.5}]),
        TypeError,
        "expected evaluations as dicts with a 'step'",
    ),
    "ch10 TrainingHistory: an unknown metric": (
        lambda: HISTORY.metric("accuracy"),
        ValueError,
        r"no evaluation metric 'accuracy'; recorded: \[\]",
    ),
    "ch10 TrainingHistory: a metric name that is not a str": (
        lambda: HISTORY.metric(0),
        TypeError,
        r"expected name as a str, got int 0",
    ),
    "ch10 TrainingHistory: the final loss of nothing": (
        lambda: TrainingHistory().final_loss,
        ValueError,
        "the history is empty: no step was taken",
    ),
    **flag_cases(
        "ch10 progress_bar", "disable", lambda v: progress_bar(range(3), disable=v)
    ),
}

test_bad_input_raises_a_clear_error = sweep(CASES)
