"""Option tables for the commands the analysis understands (GNU/Linux spellings).

Each entry says which short letters take a value, which long options exist and what their
canonical spelling is, so ``rm --recursive --force`` and ``rm -fr`` read the same.
"""

from __future__ import annotations

from ._options import OptionSpec

__all__ = ["GIT_SPECS", "SPECS", "WRAPPER_SPECS", "spec_for"]


def _table(text: str) -> dict[str, str]:
    """``"force=-f recursive=-r no-preserve-root"`` -> {long name: canonical spelling}."""
    table: dict[str, str] = {}
    for item in text.split():
        name, _, canonical = item.partition("=")
        table[name] = canonical or "--" + name
    return table


def _s(
    flags: str = "",
    values: str = "",
    lf: str = "",
    lv: str = "",
    lo: str = "",
    aliases: str = "",
    attached: str = "",
    numeric: bool = False,
    abbreviations: bool = True,
) -> OptionSpec:
    return OptionSpec(
        flags=flags,
        values=values,
        attached=attached,
        long_flags=_table(lf + " help version"),
        long_values=_table(lv),
        long_optional=_table(lo),
        aliases=dict(pair.split(">") for pair in aliases.split()),
        numeric=numeric,
        abbreviations=abbreviations,
    )


_CP_LONG = (
    "archive=-a force=-f interactive=-i link=-l dereference=-L no-clobber=-n "
    "no-dereference=-P recursive=-r symbolic-link=-s no-target-directory=-T verbose=-v "
    "one-file-system=-x parents remove-destination strip-trailing-slashes attributes-only "
    "copy-contents debug exchange no-copy"
)
_GREP_LONG = (
    "extended-regexp=-E fixed-strings=-F basic-regexp=-G perl-regexp=-P ignore-case=-i "
    "no-ignore-case invert-match=-v word-regexp=-w line-regexp=-x count=-c "
    "files-without-match=-L files-with-matches=-l only-matching=-o quiet=-q silent=-q "
    "no-messages=-s byte-offset=-b with-filename=-H no-filename=-h line-number=-n "
    "initial-tab=-T null=-Z null-data=-z text=-a recursive=-r dereference-recursive=-R "
    "binary=-U line-buffered no-group-separator"
)
_GREP_VALUES = (
    "regexp=-e file=-f max-count=-m after-context=-A before-context=-B context=-C "
    "directories=-d devices=-D include exclude exclude-from exclude-dir label binary-files "
    "group-separator"
)
_RG_VALUES = (
    "regexp=-e file=-f glob=-g iglob type=-t type-not=-T type-add type-clear max-count=-m "
    "after-context=-A before-context=-B context=-C threads=-j max-columns=-M max-depth=-d "
    "encoding=-E replace=-r pre pre-glob hostname-bin ignore-file sort sortr colors color "
    "context-separator field-context-separator field-match-separator max-filesize "
    "path-separator dfa-size-limit regex-size-limit engine hyperlink-format generate "
    "maxdepth"
)
_RG_FLAGS = (
    "text=-a count=-c fixed-strings=-F with-filename=-H ignore-case=-i files-with-matches=-l "
    "follow=-L line-number=-n no-line-number=-N only-matching=-o pretty=-p quiet=-q "
    "case-sensitive=-s smart-case=-S unrestricted=-u invert-match=-v word-regexp=-w "
    "line-regexp=-x search-zip=-z null=-0 hidden no-ignore files type-list json vimgrep "
    "no-heading heading stats trim column no-filename multiline=-U sort-files "
    "files-without-match count-matches no-messages binary byte-offset=-b"
)
_LS_VALUES = (
    "hide ignore=-I width=-w tabsize=-T block-size format sort time time-style "
    "quoting-style indicator-style"
)

SPECS: dict[str, OptionSpec] = {
    "rm": _s(
        "fiIrRdv",
        aliases="R>r",
        lf="force=-f recursive=-r dir=-d verbose=-v one-file-system no-preserve-root",
        lo="interactive=-i preserve-root",
    ),
    "rmdir": _s("pv", lf="parents=-p verbose=-v ignore-fail-on-non-empty"),
    "unlink": _s(),
    "shred": _s(
        "fuvxz",
        "ns",
        lf="force=-f exact=-x zero=-z verbose=-v",
        lv="iterations=-n size=-s random-source",
        lo="remove=-u",
    ),
    "truncate": _s("co", "rs", lf="no-create=-c io-blocks=-o", lv="reference=-r size=-s"),
    "touch": _s(
        "acfhm", "drt", lf="no-create=-c no-dereference=-h", lv="date=-d reference=-r time"
    ),
    "mkdir": _s("pvZ", "m", lf="parents=-p verbose=-v", lv="mode=-m", lo="context"),
    "chmod": _s(
        "cfvR",
        lf="changes=-c silent=-f quiet=-f verbose=-v recursive=-R preserve-root no-preserve-root",
        lv="reference",
    ),
    "chown": _s(
        "cfvhHLPR",
        lf="changes=-c silent=-f quiet=-f verbose=-v dereference "
        "no-dereference=-h recursive=-R preserve-root no-preserve-root",
        lv="reference from",
    ),
    "chattr": _s("RVf", "vp"),
    "cp": _s(
        "abdfiHlLnpPrRsTuvxZ",
        "St",
        aliases="R>r",
        lf=_CP_LONG,
        lv="suffix=-S target-directory=-t no-preserve",
        lo="backup preserve reflink sparse update context",
    ),
    "mv": _s(
        "bfinTuvZ",
        "St",
        lf="force=-f interactive=-i no-clobber=-n "
        "no-target-directory=-T verbose=-v strip-trailing-slashes exchange no-copy",
        lv="suffix=-S target-directory=-t",
        lo="backup update context",
    ),
    "install": _s(
        "bcCdDpsTvZ",
        "gmoSt",
        lf="compare=-C directory=-d preserve-timestamps=-p "
        "strip=-s no-target-directory=-T verbose=-v preserve-context",
        lv="group=-g mode=-m owner=-o suffix=-S target-directory=-t strip-program",
        lo="backup context",
    ),
    "ln": _s(
        "bdfFiLnPrsTv",
        "St",
        lf="force=-f interactive=-i logical=-L no-dereference=-n "
        "physical=-P relative=-r symbolic=-s no-target-directory=-T verbose=-v "
        "directory=-d",
        lv="suffix=-S target-directory=-t",
        lo="backup",
    ),
    "tee": _s("aip", lf="append=-a ignore-interrupts=-i", lo="output-error"),
    "mkfifo": _s("Z", "m", lv="mode=-m", lo="context"),
    "mknod": _s("Z", "m", lv="mode=-m", lo="context"),
    "sort": _s(
        "bdfgiMhnRrVcCmsuz",
        "kSTto",
        lv="output=-o key=-k buffer-size=-S "
        "field-separator=-t temporary-directory=-T files0-from parallel batch-size "
        "random-source compress-program sort",
    ),
    "grep": _s(
        "EFGPiyvwxcLloqsbHhnTZzarRUI",
        "efmABCdD",
        aliases="y>i",
        lf=_GREP_LONG,
        lv=_GREP_VALUES,
        lo="color colour",
        numeric=True,
    ),
    "rg": _s(
        "abcFHhiIlLnNopqsSuUvVwxz0",
        "efgtTmABCjMdEr",
        lf=_RG_FLAGS,
        lv=_RG_VALUES,
        abbreviations=False,
        numeric=False,
    ),
    "head": _s(
        "qvz",
        "nc",
        lf="quiet=-q silent=-q verbose=-v zero-terminated=-z",
        lv="lines=-n bytes=-c",
        numeric=True,
    ),
    "tail": _s(
        "qvzfF",
        "ncs",
        lf="quiet=-q silent=-q verbose=-v zero-terminated=-z retry",
        lv="lines=-n bytes=-c sleep-interval=-s pid max-unchanged-stats",
        lo="follow=-f",
        numeric=True,
    ),
    "ls": _s(
        "aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1",
        "ITw",
        lv=_LS_VALUES,
        lo="color hyperlink",
        lf="all=-a almost-all=-A recursive=-R dereference=-L human-readable=-h directory=-d",
    ),
    "cat": _s(
        "AbeEnstTuv",
        lf="show-all=-A number-nonblank=-b show-ends=-E number=-n "
        "squeeze-blank=-s show-tabs=-T show-nonprinting=-v",
    ),
    "wc": _s(
        "cmlLw",
        lf="bytes=-c chars=-m lines=-l max-line-length=-L words=-w",
        lv="files0-from",
        lo="total",
    ),
    "stat": _s(
        "fLt", "c", lf="dereference=-L file-system=-f terse=-t", lv="format=-c printf", lo="cached"
    ),
    "pwd": _s("LP", lf="logical=-L physical=-P"),
    "which": _s(
        "a",
        lf="all=-a skip-alias skip-functions read-alias read-functions skip-dot "
        "skip-tilde show-dot show-tilde tty-only",
    ),
    "echo": _s("neE"),
    "nl": _s(
        "p",
        "bdfhilnsvw",
        lv="body-numbering=-b section-delimiter=-d footer-numbering=-f header-numbering=-h "
        "line-increment=-i join-blank-lines=-l number-format=-n number-separator=-s "
        "starting-line-number=-v number-width=-w",
        lf="no-renumber=-p",
    ),
    "tac": _s("br", "s", lf="before=-b regex=-r", lv="separator=-s"),
    "rev": _s(),
    "cut": _s(
        "nsz",
        "bcdf",
        lv="bytes=-b characters=-c delimiter=-d fields=-f output-delimiter",
        lf="only-delimited=-s zero-terminated=-z complement",
    ),
    "paste": _s("sz", "d", lv="delimiters=-d", lf="serial=-s zero-terminated=-z"),
    "uniq": _s(
        "cdDiuz",
        "fsw",
        lv="skip-fields=-f skip-chars=-s check-chars=-w",
        lf="count=-c repeated=-d ignore-case=-i unique=-u zero-terminated=-z",
        lo="all-repeated=-D group",
    ),
    "base64": _s("di", "w", lf="decode=-d ignore-garbage=-i", lv="wrap=-w"),
    "kill": _s("lL", "sn", lv="signal=-s", lf="list=-l table=-L"),
    "sed": _s(
        "nrEsuzb",
        "efl",
        attached="i",
        lf="quiet=-n silent=-n regexp-extended=-r "
        "separate=-s unbuffered=-u null-data=-z sandbox debug posix binary=-b "
        "follow-symlinks",
        lv="expression=-e file=-f line-length=-l",
        lo="in-place=-i",
    ),
    "xargs": _s(
        "0prtxo",
        "adEILnPs",
        attached="iel",
        lv="arg-file=-a delimiter=-d max-args=-n max-procs=-P max-chars=-s process-slot-var",
        lo="replace=-i eof=-e max-lines=-l",
        lf="null=-0 interactive=-p no-run-if-empty=-r verbose=-t exit=-x open-tty=-o show-limits",
    ),
}

WRAPPER_SPECS: dict[str, OptionSpec] = {
    "env": _s(
        "i0v",
        "uCSP",
        lf="ignore-environment=-i null=-0 debug=-v list-signal-handling",
        lv="unset=-u chdir=-C split-string=-S",
        lo="block-signal default-signal ignore-signal",
    ),
    "timeout": _s(
        "v", "sk", lf="preserve-status foreground verbose=-v", lv="signal=-s kill-after=-k"
    ),
    "nice": _s("", "n", lv="adjustment=-n", numeric=True),
    "nohup": _s(),
    "stdbuf": _s("", "ioe", lv="input=-i output=-o error=-e"),
    "ionice": _s("t", "cnpPu", lf="ignore=-t", lv="class=-c classdata=-n pid=-p pgid=-P uid=-u"),
    "command": _s("pvV"),
    "builtin": _s(),
    "exec": _s("cl", "a"),
    "time": _s(
        "pvaq", "fo", lf="portability=-p verbose=-v append=-a quiet", lv="format=-f output=-o"
    ),
    "sudo": _s(
        "AbEeHiKklnPSsVv",
        "CDghprtTuU",
        lv="user=-u group=-g chdir=-D host=-h "
        "prompt=-p role=-r type=-t command-timeout=-T other-user=-U close-from=-C",
        lo="preserve-env",
        lf="login=-i shell=-s non-interactive=-n stdin=-S background=-b edit=-e",
    ),
    "doas": _s("nsL", "uC"),
    "pkexec": _s(lv="user", lf="keep-cwd disable-internal-agent"),
    "su": _s(
        "flmp",
        "cgGsw",
        lv="command=-c shell=-s group=-g supp-group=-G whitelist-environment=-w session-command",
        lf="login=-l fast=-f preserve-environment=-p pty",
    ),
    "setsid": _s("cfw", lf="ctty=-c fork=-f wait=-w"),
    "flock": _s(
        "snuxoFv",
        "wEc",
        lf="shared=-s exclusive=-x unlock=-u nonblock=-n close=-o no-fork=-F verbose",
        lv="timeout=-w wait=-w conflict-exit-code=-E command=-c",
    ),
    "watch": _s(
        "bcdegtxpwr",
        "nq",
        lv="interval=-n",
        lf="beep=-b color=-c errexit=-e "
        "chgexit=-g no-title=-t exec=-x precise=-p no-wrap=-w no-rerun=-r",
        lo="differences=-d",
    ),
    "strace": _s("cCdDfFhiqrtTvVwxyzZk", "abeEIoOpPsSuUX", lv="output=-o"),
    "ltrace": _s("bcCfhiLrStTV", "aAeFlnoOpsuwxX", lv="output=-o"),
    "chrt": _s("abdefimoprRv", "TPD"),
    "taskset": _s("acpe", lf="all-tasks=-a cpu-list=-c pid=-p"),
    "unbuffer": _s("p"),
    "chronic": _s("ev"),
    "caffeinate": _s("dimsu", "tw"),
}

_GIT_LOG_VALUES = "max-count=-n output since until author grep skip"
_GIT_ATTACHED = "format pretty date"
"""git's revision parser takes these only as ``--format=X``: a separate word is a revision."""

GIT_SPECS: dict[str, OptionSpec] = {
    "push": _s(
        "fnquv",
        "o",
        lf="force=-f dry-run=-n quiet=-q verbose=-v set-upstream=-u "
        "all mirror tags delete=-d prune no-verify follow-tags atomic",
        aliases="u>u",
        lv="push-option=-o repo receive-pack exec",
        lo="force-with-lease force-if-includes signed recurse-submodules",
    ),
    "clean": _s("dfinqxX", "e", lf="dry-run=-n force=-f interactive=-i quiet=-q", lv="exclude=-e"),
    "commit": _s(
        "aenpqsvz",
        "cCFmt",
        lf="all=-a amend no-verify=-n no-edit allow-empty signoff=-s quiet=-q verbose=-v patch=-p",
        lv="message=-m file=-F "
        "reuse-message=-C reedit-message=-c template=-t author date fixup squash",
    ),
    "reset": _s("qpN", lf="hard soft mixed merge keep quiet=-q patch=-p"),
    "checkout": _s("bBfmpq", lf="force=-f merge=-m patch=-p quiet=-q detach orphan"),
    "branch": _s(
        "aDdfilMmCcqrtuv",
        lf="all=-a delete=-d force=-f list=-l move=-m copy=-c "
        "remotes=-r verbose=-v show-current edit-description unset-upstream",
        lv="set-upstream-to=-u contains no-contains merged no-merged points-at sort format",
        lo="color column abbrev track",
    ),
    "log": _s(
        "pqsu",
        "n",
        lv=_GIT_LOG_VALUES,
        lo=_GIT_ATTACHED,
        numeric=True,
        lf="oneline graph all stat patch=-p decorate",
    ),
    "show": _s("pqs", lv="output", lo=_GIT_ATTACHED, lf="stat patch=-p oneline"),
    "diff": _s("pquRab", lv="output", lf="stat cached staged name-only name-status no-index"),
    "status": _s("sbuz", lf="short=-s branch=-b porcelain ignored long verbose"),
    "add": _s("AfnpuvN", lf="all=-A force=-f dry-run=-n patch=-p update=-u verbose=-v"),
    "blame": _s(
        "bclfnpstew",
        "LS",
        attached="MC",
        lf="root show-stats porcelain=-p line-porcelain incremental score-debug progress "
        "show-name=-f show-number=-n show-email=-e",
        lv="contents ignore-rev ignore-revs-file date abbrev",
    ),
    "stash": _s(
        "pqsu",
        "n",
        lv=_GIT_LOG_VALUES,
        lo=_GIT_ATTACHED,
        numeric=True,
        lf="oneline graph stat patch=-p decorate",
    ),
    "config": _s(
        "elz",
        "f",
        lf="global system local list=-l get get-all unset unset-all replace-all add edit=-e",
        lv="file=-f",
    ),
}


def spec_for(name: str) -> OptionSpec | None:
    """The option table for ``name`` (a canonical executable name), if known."""
    return SPECS.get(name) or WRAPPER_SPECS.get(name)
