"""Charts never hide data (issue 15, item 5)."""


def test_a_linear_chart_keeps_the_articles_scale_only_when_the_data_fit():
    from ssdlab.lab.charts import linear_scale

    assert linear_scale([12_000, 39_000], 40_000) == (40_000, "")
    top, note = linear_scale([30_000, 48_500], 40_000)
    assert top == 50_000 and "extended" in note and top >= 48_500
