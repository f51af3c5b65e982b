"""flowstate.report.report: report.html and figures of small simulated reproductions (built by
hand as docs/CATALOGUE.md describes results.json), offline, deterministic, valid
HTML5; bad output folders as one-line errors (exit status 2 through the CLI)."""

import base64
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

import report_support
from flowstate.report import report
from flowstate.report.report import ReportError
from cli_support import flowstate


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Both fixtures simulated once, their reports built once (under root/)."""
    root = tmp_path_factory.mktemp("reports")
    table5 = report_support.copy(report_support.simulated("table5"), root / "p000-table5")
    sweep = report_support.copy(report_support.simulated("sweep"), root / "sweep-demo")
    return root, {"table5": (table5, report.build(table5)), "sweep": (sweep, report.build(sweep))}


def page(built, which):
    return built[1][which][1].read_text(encoding="utf-8")


class Collector(HTMLParser):
    """Tag balance (void elements aside), tables' rows, images."""

    VOID = {"meta", "img", "br", "link", "hr", "input"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.images, self.rows, self.cell = [], [], [], {}, None
        self.table = None
        self.doctype = None

    def handle_decl(self, decl):
        self.doctype = decl

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "img":
            self.images.append(attrs)
        if tag == "table":
            self.table = attrs.get("class")
            self.rows.setdefault(self.table, [])
        if tag == "tr" and self.table:
            self.rows[self.table].append([])
        if tag in ("td", "th"):
            self.cell = []
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.table and self.rows[self.table]:
            self.rows[self.table][-1].append("".join(self.cell).strip())
            self.cell = None
        if tag == "table":
            self.table = None
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> with open {self.stack[-3:]}")
        else:
            self.stack.pop()

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def parse(text):
    collector = Collector()
    collector.feed(text)
    collector.close()
    return collector


def test_report_is_well_formed_html5_with_the_sections(built):
    text = page(built, "table5")
    doc = parse(text)
    assert doc.doctype == "DOCTYPE html"
    assert doc.errors == [] and doc.stack == []
    assert text.count("<html") == 1 and '<meta charset="utf-8">' in text
    for section in ("finding", "setup", "comparison", "claims", "figures", "summary"):
        assert f'<section id="{section}">' in text
    assert "<h1>p000-table5: GCC + SCTP on 2 Mbit/s" in text
    # The paper is cited from docs/REFERENCES.md (flowstate.catalogue.references), not as "Paper 000".
    assert "Real-Life Implementation and Evaluation of Coupled Congestion Control" in text and "Table 5" in text
    assert "Paper 000" not in text
    assert "GCC starves (0.106 Mbit/s" in text  # the finding
    assert "Test fixture: 20 s" in text  # the notes


def test_report_and_index_parse_as_html5_without_a_single_error(built):
    import html5lib

    for text in (page(built, "table5"), page(built, "sweep"), report.build_index(built[0]).read_text()):
        parser = html5lib.HTMLParser(strict=True)
        parser.parse(text)  # raises ParseError at the first spec violation
        assert parser.errors == []


def test_comparison_table_has_every_paper_number_with_ours_and_the_difference(built):
    out, _ = built[1]["table5"]
    results = json.loads((out / "results.json").read_text())
    rows = parse(page(built, "table5")).rows["comparison"]
    assert rows[0] == ["point", "metric", "paper", "ours: mean ± std [min..max]", "difference"]
    assert len(rows) - 1 == len(results["comparison"]) == 12
    first = results["comparison"][0]
    cells = rows[1]
    assert cells[0] == "uncoupled" and cells[1] == "GCC throughput (Mbit/s) flows.gcc.throughput_mbps"
    assert rows[2][1].endswith("throughput (Mbit/s) flows.gcc.throughput_mbps")
    assert cells[2] == "0.106"
    ours = first["ours"]
    assert cells[3].startswith(report.fmt(ours) + " ± " + report.fmt(first["std"], ours))
    assert f"[{report.fmt(first['min'], ours)}..{report.fmt(first['max'], ours)}]" in cells[3]
    diff = ours - first["paper"]
    assert cells[4] == report._difference(ours, first["paper"])
    assert cells[4].startswith(("+" if diff >= 0 else "") + report.fmt(diff, first["paper"]))
    assert cells[4].endswith(f"({'+' if diff >= 0 else ''}{diff / first['paper'] * 100:.0f} %)")
    assert {r[0] for r in rows[1:]} == {"uncoupled", "FSEv2"}


def test_claims_table_shows_each_status_coloured(built):
    text = page(built, "table5")
    rows = parse(text).rows["claims"]
    assert len(rows) == 4
    assert rows[0][4] == "status"
    assert rows[3][4] == "not evaluated" and '<span class="status na">not evaluated</span>' in text
    assert rows[3][2] == "{none:derived.missing} = missing"
    results = json.loads((built[1]["table5"][0] / "results.json").read_text())
    for claim, row in zip(results["claims"], rows[1:]):
        assert row[4].split(",")[0] == claim["status"]
        assert f'class="status {report._STATUS[claim["status"]]}' in text


def test_summary_tables_have_a_row_per_point_and_flow(built):
    doc = parse(page(built, "table5"))
    flows = doc.rows["summary"]
    assert [(r[0], r[1].split()[0]) for r in flows[1:]] == [
        ("uncoupled", "gcc"), ("uncoupled", "sctp"), ("FSEv2", "gcc"), ("FSEv2", "sctp")
    ]
    assert "loss (%)" in flows[0] and "RTT p95 (ms)" in flows[0]
    assert [r[0] for r in doc.rows["aggregate"][1:]] == ["uncoupled", "FSEv2"]
    sweep = parse(page(built, "sweep")).rows["summary"]
    assert sweep[1][0] == "FSEv2 [p_sctp=1.0]" and sweep[3][0] == "FSEv2 [p_sctp=0.25]"


def test_setup_names_points_runs_and_seeds(built):
    rows = dict((r[0], r[1]) for r in parse(page(built, "sweep")).rows["setup"])
    assert rows["runs per point"] == "2" and rows["seeds"] == "1..2"
    assert rows["points"].startswith("2 (FSEv2 at 2 grid values")
    assert rows["grid axis p_sctp"] == "SCTP priority: flows[1].priority = 1.0, 0.25"
    assert rows["measurement window"] == "5-20 s"


def test_every_figure_is_written_embedded_and_recorded_in_results(built):
    # table5: its five figures, the RTT bars the report adds (the paper gives RTTs) and
    # the frames figure it adds (a video flow); the sweep: its three (no time series, so
    # no frames figure).
    for which, count in (("table5", 7), ("sweep", 3)):
        out, html_path = built[1][which]
        results = json.loads((out / "results.json").read_text())
        assert (results["figures"][-1]["kind"] == "frames") == (which == "table5")
        if which == "table5":
            delay = results["figures"][-2]
            assert delay["kind"] == "bar" and delay["title"] == report.DELAY_FIGURE_TITLE
            assert delay["metrics"] == ["flows.gcc.rtt_ms.mean", "flows.sctp.rtt_ms.mean"]
        files = [f["file"] for f in results["figures"]]
        kinds = [f["kind"] for f in results["figures"]]
        assert files == [f"figures/{n}-{kind}.png" for n, kind in enumerate(kinds, start=1)]
        assert len(files) == count
        images = parse(html_path.read_text()).images
        assert len(images) == count
        for image, file in zip(images, files):
            assert image["src"].startswith("data:image/png;base64,")
            data = base64.b64decode(image["src"].split(",", 1)[1])
            assert data == (out / file).read_bytes() and data.startswith(b"\x89PNG")
            assert image["alt"].startswith("Figure ")


def test_report_is_offline(built):
    for which in ("table5", "sweep"):
        text = page(built, which)
        assert not re.search(r"https?://", text)
        assert "<link" not in text and "@import" not in text and "url(" not in text
        assert not re.search(r'<script[^>]+src=', text)


def test_text_from_results_is_escaped(built):
    text = page(built, "table5")
    assert "GCC RTT &lt;over time&gt; &amp; more" in text
    assert "<over time>" not in text


def test_build_is_deterministic(built, tmp_path):
    out, first = built[1]["table5"]
    again = report_support.copy(out, tmp_path / "again")
    (again / "report.html").unlink()
    for png in (again / "figures").iterdir():
        png.unlink()
    second = report.build(again)
    assert second.read_bytes() == first.read_bytes()
    for png in (out / "figures").iterdir():
        assert (again / "figures" / png.name).read_bytes() == png.read_bytes()
    assert (again / "results.json").read_bytes() == (out / "results.json").read_bytes()


def test_index_links_every_report(built):
    root = built[0]
    index = report.build_index(root)
    text = index.read_text()
    doc = parse(text)
    assert doc.errors == []
    assert '<a href="p000-table5/report.html">p000-table5</a>' in text
    assert '<a href="sweep-demo/report.html">sweep-demo</a>' in text
    assert [r[0] for r in doc.rows["index"][1:]] == ["p000-table5", "sweep-demo"]
    assert not re.search(r"https?://", text)


def test_index_of_an_empty_folder_is_an_error(tmp_path):
    with pytest.raises(ReportError, match="no reproduction found"):
        report.build_index(tmp_path)


@pytest.fixture
def small(built, tmp_path):
    """A copy of the sweep fixture to break."""
    return report_support.copy(built[1]["sweep"][0], tmp_path / "small")


def edit_results(folder, change):
    path = folder / "results.json"
    results = json.loads(path.read_text())
    change(results)
    path.write_text(json.dumps(results))


@pytest.mark.parametrize(
    "breakage, message",
    [
        (lambda f: (f / "results.json").unlink(), r"results\.json: not found"),
        (lambda f: (f / "results.json").write_text("{ not json"), r"results\.json: not valid JSON: .* line 1"),
        (lambda f: (f / "results.json").write_text("[]"), r"results\.json: expected a JSON object"),
        (lambda f: edit_results(f, lambda r: r.pop("points")), r"results\.json: field 'points' missing"),
        (lambda f: edit_results(f, lambda r: r["points"][0].pop("summary")), r"points\[0\]\.summary missing"),
        (lambda f: edit_results(f, lambda r: r["figures"].append({"kind": "pie"})), r"figures\[3\]\.kind: expected one of"),
        (lambda f: edit_results(f, lambda r: r["figures"].append({"kind": "rate", "points": ["x"]})),
         r"figures\[3\]\.points: no point named 'x'"),
        (lambda f: edit_results(f, lambda r: r["figures"].append({"kind": "sweep", "x": "q", "y": "aggregate.jain_index"})),
         r"figures\[3\] \(sweep\): x: no grid axis named 'q'"),
        (lambda f: edit_results(f, lambda r: r["figures"].append({"kind": "bar", "metrics": ["nonsense"]})),
         r"figures\[3\] \(bar\): bad metric path"),
        (lambda f: edit_results(f, lambda r: r["figures"].append({"kind": "rate"})) or
         (f / "fsev2_p_sctp_1.0_" / "timeseries.csv").unlink(), r"timeseries\.csv: not found \(point 'fsev2\[p_sctp=1\.0\]'\)"),
    ],
)
def test_bad_output_folder_is_a_one_line_error(small, breakage, message):
    shutil.rmtree(small / "figures")
    breakage(small)
    with pytest.raises(ReportError, match=message) as error:
        report.build(small)
    assert "\n" not in str(error.value)
    if "figures[3] (" in message:  # checked before any figure is drawn
        assert not (small / "figures").exists()


def test_cli_report_rebuilds_an_output_folder_identically_in_another_process(built, small):
    (small / "report.html").unlink()
    shutil.rmtree(small / "figures")
    result = flowstate("report", small)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"wrote {small / 'report.html'}"
    original = built[1]["sweep"][1]
    assert (small / "report.html").read_bytes() == original.read_bytes()


def test_cli_report_on_a_folder_of_reproductions_rebuilds_all_and_the_index(built, tmp_path):
    root = tmp_path / "all"
    for name in ("b", "a"):  # the small fixture twice, to keep this fast
        report_support.copy(built[1]["sweep"][0], root / name)
        (root / name / "report.html").unlink()
    result = flowstate("report", root)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        f"wrote {root / 'a' / 'report.html'}", f"wrote {root / 'b' / 'report.html'}", f"wrote {root / 'index.html'}",
    ]
    assert (root / "a" / "report.html").exists() and (root / "b" / "report.html").exists()
    assert '<a href="a/report.html">sweep-demo</a>' in (root / "index.html").read_text()


@pytest.mark.parametrize("content", [None, "{ corrupt", '{"id": "x"}'])
def test_cli_report_bad_folder_exits_2_with_one_line(tmp_path, content):
    if content is not None:
        (tmp_path / "results.json").write_text(content)
    result = flowstate("report", tmp_path)
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("flowstate: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert str(Path(tmp_path) / "results.json") in result.stderr


@pytest.mark.parametrize(
    "value, like, text",
    [(0.1234, None, "0.123"), (1.234, None, "1.23"), (12.34, None, "12.3"), (293.4, None, "293"),
     (2.13, 293.0, "2"), (0.0213, 0.249, "0.021"), (None, None, "-"), (float("nan"), None, "-")],
)
def test_fmt_gives_three_significant_digits_or_the_precision_of_like(value, like, text):
    assert report.fmt(value, like) == text


def test_minimal_results_render_with_placeholders(tmp_path):
    """No figures, no paper numbers, no claims, one run, a flow without RTT: the report
    says so instead of failing."""
    results = {
        "id": "tiny", "paper": "rfc8867", "reference": "5.1", "title": "one CBR flow", "finding": "",
        "runs": 1, "seed": 7, "points": [{
            "name": "only", "summary": {
                "runs": 1, "seeds": [7], "duration_s": 10.0, "window_s": [0.0, 10.0],
                "flows": [{"name": "cbr", "kind": "cbr", "throughput_mbps": 1.0, "share": 1.0,
                           "rtt_ms": {"mean": None, "p95": None}, "queuing_delay_ms": {"mean": 0.0, "p95": 0.0},
                           "loss_ratio": 0.0}],
                "aggregate": {"throughput_mbps": 1.0, "utilization": 0.5, "jain_index": 1.0}}}],
    }
    (tmp_path / "results.json").write_text(json.dumps(results))
    text = report.build(tmp_path).read_text()
    doc = parse(text)
    assert doc.errors == [] and doc.images == []
    assert "RFC 8867" in text and "The paper gives no numbers" in text and "No claims" in text
    assert "No figures" in text
    row = doc.rows["summary"][1]
    assert row[:3] == ["only", "cbr (cbr)", "1.00"] and row[4] == "-" and row[5] == "-"
    assert dict((r[0], r[1]) for r in doc.rows["setup"])["seeds"] == "7"  # one run, one seed
    assert json.loads((tmp_path / "results.json").read_text())["figures"] == []


@pytest.mark.parametrize(
    "ours, paper, text",
    [(0.258, 0.106, "+0.152 (+143 %)"), (1.74, 1.889, "-0.15 (-8 %)"), (0.9981, 0.998, "0.000 (0 %)"),
     (307.0, 268, "+39 (+15 %)"), (0.5, 0.0, "+0.500"), (None, 1.0, "-")],
)
def test_difference_is_signed_in_the_papers_precision(ours, paper, text):
    assert report._difference(ours, paper) == text


def test_a_rebuild_removes_figures_of_an_earlier_build_only(small):
    (small / "figures" / "9-rate.png").write_bytes(b"old")
    (small / "figures" / "mine.png").write_bytes(b"not ours")
    report.build(small)
    names = sorted(p.name for p in (small / "figures").iterdir())
    assert names == ["1-sweep.png", "2-sweep.png", "3-bar.png", "mine.png"]


def test_a_claim_off_the_papers_value_is_flagged_in_the_page_and_results(tmp_path):
    """A results.json written before the flag existed: the report adds it."""
    summary = {"runs": 1, "flows": [{"name": "gcc", "rtt_ms": {"mean": 202.0}}], "aggregate": {}}
    results = {
        "id": "flag", "title": "a claim off the paper", "runs": 1, "points": [{"name": "fsev2", "summary": summary}],
        "comparison": [{"point": "fsev2", "metric": "flows.gcc.rtt_ms.mean", "label": "GCC RTT (ms)", "paper": 115,
                        "ours": 202.0, "std": 0.0, "min": 202.0, "max": 202.0}],
        "claims": [{"text": "RTT below 250 ms", "check": "{fsev2:flows.gcc.rtt_ms.mean} < 250", "status": "holds",
                    "values": {"{fsev2:flows.gcc.rtt_ms.mean}": 202.0}}],
    }
    folder = tmp_path / "flag"
    folder.mkdir()
    (folder / "results.json").write_text(json.dumps(results))
    text = report.build(folder).read_text()
    claims_rows = parse(text).rows["claims"]
    assert claims_rows[1][4] == "holds, value off by +76 %"
    assert claims_rows[1][3] == "{fsev2:flows.gcc.rtt_ms.mean}: paper 115, ours 202 (+76 %)"
    import html
    import re

    plain = html.unescape(re.sub(r"<[^>]+>", "", text))
    assert "1 of 1 claims hold (1 with a value off the paper's by more than 25 %), 0 fail" in plain
    written = json.loads((folder / "results.json").read_text())["claims"][0]
    assert written["value_off"] is True and written["relative_difference"] == pytest.approx(87 / 115)

    assert "1 off the paper's values" in report.build_index(tmp_path).read_text()


def test_a_point_with_a_video_flow_gets_the_frames_figure_and_the_video_table(tmp_path):
    """summary.json's ``video`` (the receiver's frames) gives a per-point QoE table and a
    frames figure (frame rate and delay over time, freezes marked), added by the report."""
    video = {"frames_rendered": 3500, "fps": 29.2, "frame_delay_ms": {"mean": 95.0, "p50": 90.0, "p95": 180.0,
                                                                      "p99": 240.0},
             "freezes": 3, "freezes_per_min": 1.5, "freeze_duration_s": 1.25, "pauses": 0, "pause_duration_s": 0.0,
             "frames_lost": 4, "frames_late": 2, "frames_dropped_encoder": 40, "frames_encoded": 3546}
    results = {
        "id": "tiny", "paper": "rfc8867", "reference": "5.1", "title": "one video flow", "finding": "",
        "runs": 1, "seed": 7, "points": [{
            "name": "only", "summary": {
                "runs": 1, "seeds": [7], "duration_s": 2.0, "window_s": [0.0, 2.0],
                "flows": [{"name": "gcc", "kind": "gcc", "throughput_mbps": 1.0, "share": 1.0,
                           "rtt_ms": {"mean": 50.0, "p95": 60.0}, "queuing_delay_ms": {"mean": 0.0, "p95": 0.0},
                           "loss_ratio": 0.0, "video": video}],
                "aggregate": {"throughput_mbps": 1.0, "utilization": 0.5, "jain_index": 1.0}}}],
        "figures": [{"kind": "rate"}],
    }
    (tmp_path / "results.json").write_text(json.dumps(results))
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "timeseries.csv").write_text(
        "run,time_s,flow,throughput_mbps,fps,frame_delay_ms,freezes\n"
        "0,0.0,gcc,1.0,30,90,0\n0,0.5,gcc,1.0,12,250,1\n0,1.0,gcc,1.0,30,95,0\n0,1.5,gcc,1.0,30,92,0\n"
    )
    text = report.build(tmp_path).read_text()
    doc = parse(text)
    assert doc.errors == [] and len(doc.images) == 2
    row = doc.rows["video"][1]
    assert row[:2] == ["only", "gcc (gcc)"]
    assert row[2:7] == ["29.2", "95.0", "180", "3", "1.50"]
    assert [f["kind"] for f in json.loads((tmp_path / "results.json").read_text())["figures"]] == ["rate", "frames"]
    # a point without a video flow has neither
    results["points"][0]["summary"]["flows"][0].pop("video")
    results["figures"] = [{"kind": "rate"}]
    other = tmp_path / "other"
    (other / "only").mkdir(parents=True)
    (other / "results.json").write_text(json.dumps(results))
    (other / "only" / "timeseries.csv").write_text((tmp_path / "only" / "timeseries.csv").read_text())
    doc = parse(report.build(other).read_text())
    assert "video" not in doc.rows and len(doc.images) == 1
