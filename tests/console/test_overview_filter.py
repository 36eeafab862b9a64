"""The overview's filter in the URL: any query gives a filter, and a filter survives its link."""

from __future__ import annotations

from urllib.parse import parse_qs

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from watchpost.console.overview_data import (
    DEFAULT_PER_PAGE,
    PER_PAGES,
    SORTS,
    OverviewFilter,
    parse_filter,
    to_query,
)
from watchpost.console.overview_rules import KINDS, STATES

NAMES = ("q", "state", "kind", "group", "sort", "page", "per_page", "other")
values = st.one_of(st.text(max_size=40), st.sampled_from(["up", "-1", "0", "250", "monitor:3"]))
queries = st.dictionaries(
    st.sampled_from(NAMES), st.one_of(values, st.lists(values, max_size=4)), max_size=len(NAMES)
)


def read(query: str) -> OverviewFilter:
    return parse_filter(parse_qs(query, keep_blank_values=True))


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(queries)
def test_any_query_gives_a_valid_filter(query: dict[str, str | list[str]]) -> None:
    flt = parse_filter(query)
    assert flt.states <= set(STATES) and flt.kinds <= set(KINDS)
    assert flt.sort in SORTS and flt.per_page in PER_PAGES and flt.page >= 1
    assert (flt.group_id is None) == (flt.group_kind is None)
    assert read(to_query(flt)) == flt


filters = st.builds(
    OverviewFilter,
    search=st.text(
        st.characters(
            codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")
        ),
        max_size=30,
    ),
    states=st.frozensets(st.sampled_from(STATES)),
    kinds=st.frozensets(st.sampled_from(KINDS)),
    sort=st.sampled_from(SORTS),
    page=st.integers(1, 10_000),
    per_page=st.sampled_from(PER_PAGES),
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(
    filters,
    st.one_of(
        st.none(),
        st.tuples(st.sampled_from(["monitor", "heartbeat", "collector"]), st.integers(1, 10**6)),
    ),
)
def test_a_filter_survives_its_query_string(
    flt: OverviewFilter, group: tuple[str, int] | None
) -> None:
    if group is not None:
        flt = OverviewFilter(**{**flt.__dict__, "group_kind": group[0], "group_id": group[1]})
    assert read(to_query(flt)) == flt


def test_the_url_words() -> None:
    flt = read(
        "q=+Shop++eu+&state=down&state=UP&state=sideways&kind=heartbeat&group=monitor:12"
        "&sort=-name&page=3&per_page=100"
    )
    assert flt == OverviewFilter(
        search="Shop eu",
        states=frozenset({"down", "up"}),
        kinds=frozenset({"heartbeat"}),
        group_id=12,
        group_kind="monitor",
        sort="-name",
        page=3,
        per_page=100,
    )
    assert to_query(flt, page=4) == (
        "q=Shop+eu&state=down&state=up&kind=heartbeat&group=monitor%3A12&sort=-name&page=4"
        "&per_page=100"
    )


def test_what_cannot_be_read_falls_back_to_the_defaults() -> None:
    flt = read("page=-2&per_page=33&sort=DROP+TABLE&group=team:1&kind=incident&page=x")
    assert flt == OverviewFilter()
    assert (flt.page, flt.per_page, flt.sort) == (1, DEFAULT_PER_PAGE, "state")
    assert to_query(flt) == ""
    assert read("group=heartbeat:x").group is None
    assert read("page=99999999999999999999").page == 1
