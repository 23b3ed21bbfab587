"""One seed of each study of chapters 18, 19, rerun (tests/test_studies.py)."""

import pytest
from test_studies import rerun, studies_of


@pytest.mark.parametrize("study", studies_of("18", "19"), ids=lambda s: s.name)
def test_one_seed_reproduces(study):
    rerun(study)
