"""`dominotable check-capture --before "..." --after "..." [--set 6|9|12] [--json]`.

Could one turn's legal captures turn the row BEFORE into AFTER, and if not, why not? An
answer either way exits 0; only bad input exits 2. `--before - --after -` reads
`before | after` lines from stdin and prints one JSON object per line.
"""

from __future__ import annotations

import json

from dominotable.app.commands.solve import add_set_flag, batch, dset_of
from dominotable.rules.errors import BadOption, DominoError
from dominotable.rules.games.castle_rock.capture import check_capture
from dominotable.rules.tiles import DominoSet


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "check-capture", help="is a row after captures reachable from the row before?",
        description="Check that some legal sequence of Castle Rock captures turns BEFORE into AFTER.")
    parser.add_argument("--before", required=True,
                        help='the row before the captures; - reads "before | after" lines from stdin')
    parser.add_argument("--after", required=True, help="the row after the captures; - with --before -")
    add_set_flag(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def check(before: str, after: str, dset: DominoSet) -> dict:
    verdict = check_capture(dset.parse_many(before), dset.parse_many(after))
    return {"legal": verdict.legal, "reason": verdict.reason}


def check_line(line: str, dset: DominoSet) -> dict:
    if line.count("|") != 1:
        raise DominoError(f"{line.strip()!r} is not a case; write: before tiles | after tiles")
    before, after = line.split("|")
    return check(before, after, dset)


def run(args) -> int:
    dset = dset_of(args)
    piped = (args.before.strip() == "-", args.after.strip() == "-")
    if any(piped):
        if not all(piped):
            raise BadOption("batch mode needs both --before - and --after -")
        return batch(lambda line: check_line(line, dset))
    answer = check(args.before, args.after, dset)
    if args.json:
        print(json.dumps(answer))
    else:
        print(f"{'legal' if answer['legal'] else 'illegal'}: {answer['reason']}")
    return 0
