"""The printed pages' styles (A4, page breaks, questions kept whole) and the HTML document round them."""
from __future__ import annotations

import html

PRINT_ADVICE = "Open in a browser and print (or Save as PDF); works offline."


BASE_CSS = """
@page { size: A4; margin: 16mm 15mm 18mm 18mm;
        @bottom-center { content: counter(page); font: 10pt Arial, Helvetica, sans-serif; } }
* { box-sizing: border-box; }
html { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
body { font-family: Arial, Helvetica, "Liberation Sans", sans-serif; font-size: 12pt; line-height: 1.45;
       color: #000; background: #fff; margin: 0 auto; max-width: 180mm; padding: 6mm 0; }
h1, h2, h3 { font-weight: bold; line-height: 1.2; }
math { font-size: 1.05em; }
svg.diagram { display: block; margin: 3mm 0 3mm 2mm; max-width: 100%; height: auto; }
.page-break { break-before: page; page-break-before: always; }
.cover .course { font-size: 15pt; margin: 0 0 2mm; }
.cover h1 { font-size: 24pt; margin: 0 0 4mm; }
.cover .kind { font-size: 13pt; margin: 0 0 6mm; }
table.facts { border-collapse: collapse; margin: 0 0 6mm; }
table.facts th { text-align: left; padding: 1mm 6mm 1mm 0; font-weight: normal; }
table.facts td { font-weight: bold; padding: 1mm 0; }
.screen-note { font-size: 10pt; color: #444; border: 1px solid #bbb; padding: 2mm 3mm; margin: 0 0 6mm; }
@media print { .screen-note { display: none; } }
"""

PAPER_CSS = BASE_CSS + """
table.candidate { border-collapse: collapse; width: 100%; margin: 2mm 0 8mm; }
table.candidate td { border: 1.5px solid #000; height: 12mm; vertical-align: top; padding: 1mm 2mm;
                     font-size: 9pt; width: 33%; }
.cover .fill { font-weight: bold; margin: 4mm 0 1mm; }
.cover ul.instructions { padding-left: 5mm; }
.cover ul.instructions li { margin: 1.5mm 0; }
.cover .calculator { font-weight: bold; font-size: 13pt; }
.cover .foot { margin-top: 10mm; font-size: 9pt; color: #333; }
.formulae h2 { text-align: center; font-size: 16pt; letter-spacing: 0.05em; margin: 0 0 8mm; }
.formulae dl { margin: 0; }
.formulae dt { font-weight: bold; margin: 6mm 0 2mm; }
.formulae dd { margin: 0 0 0 8mm; }
.questions-head { display: flex; justify-content: flex-end; font-weight: bold; font-size: 9pt;
                  border-bottom: 1px solid #000; margin: 0 0 4mm; }
.question { display: grid; grid-template-columns: 10mm 1fr; margin: 0 0 5mm; break-inside: avoid;
            page-break-inside: avoid; }
.question.has-parts { break-inside: auto; page-break-inside: auto; }   /* a long question breaks between parts */
.qnum { font-weight: bold; }
.row { display: grid; grid-template-columns: 1fr 14mm; column-gap: 3mm; }
.row .mark { text-align: right; font-weight: bold; align-self: end; }
.part { display: grid; grid-template-columns: 9mm 1fr; margin: 0 0 2mm; break-inside: avoid;
        page-break-inside: avoid; }
.plabel { font-weight: bold; }
ol.options { list-style: none; padding: 0; margin: 2mm 0; display: grid; grid-template-columns: 1fr 1fr;
             gap: 1.5mm 6mm; }
ol.options .letter { display: inline-block; min-width: 7mm; font-weight: bold; }
.working { margin: 2mm 17mm 0 0; border-bottom: 1px solid #999;
           background-image: linear-gradient(to bottom, transparent 7.5mm, #b4b4b4 7.5mm);
           background-size: 100% 8mm; }
.end { text-align: center; font-weight: bold; margin: 10mm 0 0; break-inside: avoid; }
"""

SCHEME_CSS = BASE_CSS + """
table.totals, table.scheme { border-collapse: collapse; width: 100%; }
table.totals th, table.totals td { border: 1px solid #000; padding: 1.5mm 3mm; text-align: left; }
table.totals td.n, table.totals th.n { text-align: right; }
.principles { font-size: 10.5pt; }
.paper-title { font-size: 16pt; border-bottom: 2px solid #000; padding-bottom: 1mm; margin: 0 0 5mm; }
.question { margin: 0 0 7mm; break-inside: avoid; page-break-inside: avoid; }
.question.has-parts { break-inside: auto; page-break-inside: auto; }
table.scheme tr, .answer, .notes li, .commentary { break-inside: avoid; page-break-inside: avoid; }
.answer { break-after: avoid; page-break-after: avoid; }
table.scheme th, table.scheme td { border: 1px solid #000; padding: 1.5mm 2mm; vertical-align: top;
                                   text-align: left; }
table.scheme thead th { background: #e6e6e6; font-size: 10pt; }
table.scheme th.q { width: 16mm; }
table.scheme th.m, table.scheme td.m { width: 14mm; text-align: center; }
table.scheme td.ill { width: 40%; }
.bullet { font-weight: bold; white-space: nowrap; }
.answer { margin: 0 0 1.5mm; }
.notes { font-size: 10.5pt; margin: 2mm 0 0; }
.notes ol { margin: 1mm 0; padding-left: 6mm; }
.commentary { font-size: 10.5pt; margin: 1.5mm 0 0; }
"""


def document(title: str, css: str, body: list[str]) -> str:
    """A self-contained page: the styles inline, nothing to fetch."""
    return "\n".join(["<!DOCTYPE html>", '<html lang="en-GB">', "<head>", '<meta charset="utf-8">',
                      '<meta name="viewport" content="width=device-width, initial-scale=1">',
                      f"<title>{html.escape(title)}</title>", f"<style>{css}</style>", "</head>", "<body>",
                      *body, "</body>", "</html>", ""])
