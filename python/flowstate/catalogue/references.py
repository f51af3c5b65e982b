"""The papers and RFCs flowstate implements and reproduces: one place for how they are
cited (docs/REFERENCES.md is this module's text: ``python -m flowstate.catalogue.references``
writes it, and a test checks that the two agree). ``flowstate list`` and the report
name a paper by :func:`cite` instead of its bare catalogue number ("paper 000").

::

    >>> from flowstate.catalogue import references
    >>> references.cite("000")
    'Islam, Welzl, Fladby: Real-Life Implementation and Evaluation of Coupled Congestion Control for WebRTC Media and Data Flows (IEEE Access, 2022)'
    >>> references.short("rfc8867")
    'RFC 8867 (Sarker et al., 2021)'
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Reference:
    key: str  # the catalogue's paper id ("000", "rfc8867") or "rfcNNNN"
    authors: tuple[str, ...]
    title: str
    venue: str
    year: int
    doi: Optional[str] = None
    note: str = ""  # where the entry comes from, when not from the document's own text

    def surnames(self) -> str:
        names = [a.split()[-1] for a in self.authors]
        return ", ".join(names) if len(names) <= 3 else f"{names[0]} et al."


# The five papers (by the catalogue's paper id). Authors, title, venue, year and DOI as
# each paper's text gives them; `note` says where a field does not come from the text.
PAPERS: dict[str, Reference] = {
    "000": Reference(
        "000", ("Safiqul Islam", "Michael Welzl", "Tobias Fladby"),
        "Real-Life Implementation and Evaluation of Coupled Congestion Control for WebRTC Media and Data Flows",
        "IEEE Access", 2022, "10.1109/ACCESS.2022.3206041",
    ),
    "001": Reference(
        "001", ("Luca De Cicco", "Gaetano Carlucci", "Saverio Mascolo"),
        "Understanding the Dynamic Behaviour of the Google Congestion Control for RTCWeb",
        "20th International Packet Video Workshop (PV)", 2013, None,
        "venue and year are not in the paper's text we have (its newest reference is from 2013)",
    ),
    "002": Reference(
        "002", ("Gaetano Carlucci", "Luca De Cicco", "Stefan Holmer", "Saverio Mascolo"),
        "Analysis and Design of the Google Congestion Control for Web Real-time Communication (WebRTC)",
        "ACM Multimedia Systems Conference (MMSys '16), Klagenfurt", 2016, "10.1145/2910017.2910605",
    ),
    "003": Reference(
        "003", ("Safiqul Islam", "Michael Welzl", "Stein Gjessing"),
        "Coupled Congestion Control for WebRTC",
        "short paper, University of Oslo (venue not stated in the text)", 2015, None,
        "the text states no venue or date; 2015 is the year of its newest reference",
    ),
    "004": Reference(
        "004", ("Safiqul Islam", "Michael Welzl", "Stein Gjessing", "Naeem Khademi"),
        "Coupled Congestion Control for RTP Media",
        "Technical Report 440, Department of Informatics, University of Oslo (ISBN 978-82-7368-405-9)", 2014, None,
    ),
}


def _rfc(number: int, authors: tuple[str, ...], title: str, year: int) -> Reference:
    return Reference(f"rfc{number}", authors, title, f"RFC {number}", year, f"10.17487/RFC{number}")


RFCS: dict[str, Reference] = {
    r.key: r
    for r in (
        _rfc(8699, ("S. Islam", "M. Welzl", "S. Gjessing"), "Coupled Congestion Control for RTP Media", 2020),
        _rfc(8698, ("X. Zhu", "R. Pan", "M. Ramalho", "S. Mena"),
             "Network-Assisted Dynamic Adaptation (NADA): A Unified Congestion Control Scheme for Real-Time Media",
             2020),
        _rfc(8298, ("I. Johansson", "Z. Sarker"), "Self-Clocked Rate Adaptation for Multimedia", 2017),
        _rfc(6817, ("S. Shalunov", "G. Hazel", "J. Iyengar", "M. Kuehlewind"),
             "Low Extra Delay Background Transport (LEDBAT)", 2012),
        _rfc(8867, ("Z. Sarker", "V. Singh", "X. Zhu", "M. Ramalho"),
             "Test Cases for Evaluating Congestion Control for Interactive Real-Time Media", 2021),
        _rfc(8868, ("Z. Sarker", "X. Zhu", "J. Fu"),
             "Evaluating Congestion Control for Interactive Real-Time Media: Test Cases for the Wireless Environment",
             2021),
        _rfc(8888, ("Z. Sarker", "C. Perkins", "V. Singh", "M. Ramalho"),
             "RTP Control Protocol (RTCP) Feedback for Congestion Control", 2021),
        _rfc(8382, ("D. Hayes", "S. Ferlin", "M. Welzl", "K. Hiorth"),
             "Shared Bottleneck Detection for Coupled Congestion Control for RTP Media", 2018),
        _rfc(7983, ("M. Petit-Huguenin", "G. Salgueiro"),
             "Multiplexing Scheme Updates for Secure Real-time Transport Protocol (SRTP) Extension for "
             "Datagram Transport Layer Security (DTLS)", 2016),
        _rfc(8261, ("M. Tuexen", "R. Stewart", "R. Jesup", "S. Loreto"),
             "Datagram Transport Layer Security (DTLS) Encapsulation of SCTP Packets", 2017),
        _rfc(5681, ("M. Allman", "V. Paxson", "E. Blanton"), "TCP Congestion Control", 2009),
        _rfc(9438, ("L. Xu", "S. Ha", "I. Rhee", "V. Goel", "L. Eggert"),
             "CUBIC for Fast and Long-Distance Networks", 2023),
        _rfc(4960, ("R. Stewart",), "Stream Control Transmission Protocol", 2007),
    )
}

ALL: dict[str, Reference] = {**PAPERS, **RFCS}


def get(key: str) -> Optional[Reference]:
    """The reference of a catalogue paper id ("000", "rfc8867") or "rfcNNNN"; None if unknown."""
    return ALL.get(str(key).strip().lower().replace(" ", ""))


def cite(key: str) -> str:
    """``Surnames: Title (Venue, Year)``; the key itself when unknown."""
    ref = get(key)
    if ref is None:
        return f"paper {key}" if key else ""
    return f"{ref.surnames()}: {ref.title} ({ref.venue}, {ref.year})"


def short(key: str) -> str:
    """``Islam et al. 2022 (IEEE Access)`` for a paper, ``RFC 8867 (Sarker et al., 2021)``."""
    ref = get(key)
    if ref is None:
        return f"paper {key}" if key else ""
    names = [a.split()[-1] for a in ref.authors]
    who = names[0] + (" et al." if len(names) > 2 else f" and {names[1]}" if len(names) == 2 else "")
    if ref.key.startswith("rfc"):
        return f"{ref.venue} ({who}, {ref.year})"
    return f"{who} {ref.year} ({ref.venue.split(' (')[0].split(',')[0]})"


def _entry(ref: Reference) -> str:
    doi = f" DOI [{ref.doi}](https://doi.org/{ref.doi})." if ref.doi else ""
    note = f" ({ref.note}.)" if ref.note else ""
    return f"- **{ref.key}**: {', '.join(ref.authors)}. *{ref.title}*. {ref.venue}, {ref.year}.{doi}{note}"


def markdown() -> str:
    """The text of docs/REFERENCES.md."""
    lines = [
        "# References",
        "",
        "The papers whose experiments the catalogue reproduces (docs/CATALOGUE.md; an entry's",
        "`paper` is the key below) and the RFCs the code implements or follows. `flowstate list`",
        "and the report cite them from the same list (`python/flowstate/catalogue/references.py`; this",
        "file is its output, `python -m flowstate.catalogue.references > docs/REFERENCES.md`, and a test",
        "checks that they agree). Authors, titles, venues, years and DOIs of the papers are as",
        "their text gives them; a note says where the text does not.",
        "",
        "## Papers",
        "",
        *(_entry(r) for r in PAPERS.values()),
        "",
        "## RFCs",
        "",
        *(_entry(r) for r in sorted(RFCS.values(), key=lambda r: int(r.key[3:]))),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(markdown())
