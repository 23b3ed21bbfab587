"""One seed of each study of chapters 10, 03, 07, rerun (tests/test_studies.py)."""

import pytest
from test_studies import rerun, studies_of


@pytest.mark.parametrize("study", studies_of("10", "03", "07"), ids=lambda s: s.name)
def test_one_seed_reproduces(study):
    rerun(study)
