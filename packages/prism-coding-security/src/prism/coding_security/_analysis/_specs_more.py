"""Option tables for the read-only commands added to the allowlist in issue 24 (GNU spellings).

Only options that neither write, run a program, nor read a list of further names are in these
tables; anything else is "unknown" and the command needs approval.
"""

from __future__ import annotations

from ._options import OptionSpec
from ._specs import _s

__all__ = ["EXTRA_SPECS"]

EXTRA_SPECS: dict[str, OptionSpec] = {
    "sort": _s(
        "bdfgiMhnRrVcCmsuz",
        "kSt",
        lf="ignore-leading-blanks=-b dictionary-order=-d ignore-case=-f general-numeric-sort=-g "
        "ignore-nonprinting=-i month-sort=-M human-numeric-sort=-h numeric-sort=-n "
        "random-sort=-R reverse=-r version-sort=-V merge=-m stable=-s unique=-u "
        "zero-terminated=-z debug",
        lv="key=-k buffer-size=-S field-separator=-t parallel batch-size random-source sort",
        lo="check=-c",
    ),
    "diff": _s(
        "iEZbwBatTcueynpqsrNd",
        "CUFIxXSDW",
        lf="ignore-case=-i ignore-file-name-case no-ignore-file-name-case "
        "ignore-tab-expansion=-E ignore-trailing-space=-Z ignore-space-change=-b "
        "ignore-all-space=-w ignore-blank-lines=-B strip-trailing-cr text=-a expand-tabs=-t "
        "initial-tab=-T suppress-common-lines left-column suppress-blank-empty "
        "show-c-function=-p brief=-q report-identical-files=-s recursive=-r no-dereference "
        "new-file=-N unidirectional-new-file minimal=-d speed-large-files normal ed=-e rcs=-n "
        "side-by-side=-y",
        lv="show-function-line=-F ignore-matching-lines=-I exclude=-x exclude-from=-X "
        "starting-file=-S ifdef=-D width=-W tabsize horizon-lines from-file to-file label "
        "line-format old-line-format new-line-format unchanged-line-format "
        "old-group-format new-group-format changed-group-format unchanged-group-format palette",
        lo="context=-C unified=-U color",
        numeric=True,
    ),
    "du": _s(
        "0abcDHhkLlmPSsx",
        "BdtX",
        lf="null=-0 all=-a apparent-size bytes=-b total=-c dereference-args=-D "
        "human-readable=-h inodes dereference=-L count-links=-l no-dereference=-P "
        "separate-dirs=-S si summarize=-s one-file-system=-x",
        lv="block-size=-B max-depth=-d threshold=-t time-style exclude exclude-from=-X",
        lo="time",
    ),
    "file": _s(
        "bcdEhikLNnrsv0",
        "eFP",
        lf="brief=-b checking-printout=-c no-dereference=-h mime=-i keep-going=-k "
        "dereference=-L no-pad=-N no-buffer=-n raw=-r special-files=-s print0=-0 apple "
        "extension mime-type mime-encoding",
        lv="exclude=-e exclude-quiet separator=-F parameter=-P",
    ),
    "tree": _s(
        "adlfxqNQpugshDFvtcUrCnASiJX",
        "LPIHT",
        lf="inodes device noreport dirsfirst filesfirst du si prune gitignore matchdirs "
        "ignore-case metafirst",
        lv="filelimit timefmt sort charset",
        abbreviations=False,
    ),
}
