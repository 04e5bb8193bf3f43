"""Email: the messages the student has sent.

State: ``sent`` lists every email in the order it was sent, and ``next_email`` numbers
new ones (``mail_1``, ``mail_2``, ...). There is no inbox: as in StuLife, email is
outgoing only, and a task is judged by what was sent.

Rules: ``to`` is exactly one address and ``cc`` one or more addresses separated by commas,
each of the simple form ``local@domain.tld`` in ASCII; the subject is one non-empty line
of at most 200 characters; the body is not blank. Addresses, subject and body are stored
stripped of surrounding whitespace, and cc as ``a@x.edu, b@y.edu``.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from campus.events import EmailSent
from campus.kernel.projection import Domain
from campus.kernel.tools import Outcome, Param, Refuse, ToolDecl, ok

MAX_SUBJECT = 200
MAX_ADDRESS = 254

_LOCAL = re.compile(r"[A-Za-z0-9_%+'-]+(?:\.[A-Za-z0-9_%+'-]+)*")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
_TLD = re.compile(r"[A-Za-z]{2,63}")
# Each quantified class above is followed by a character it cannot match ('.' or the end),
# so a failing match is linear in the length of the text.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
"""Characters that break a line: the C0 controls and DEL."""


class Mail(msgspec.Struct, kw_only=True, frozen=True):
    email_id: str
    to: str
    cc: str = ""
    subject: str
    body: str


class EmailState(msgspec.Struct, kw_only=True):
    sent: list[Mail] = []
    next_email: int = 1


# ------------------------------------------------------------------ checks


def address_problem(address: str) -> str | None:
    """Why ``address`` is not a simple ``local@domain.tld`` address, or None if it is one."""
    if not address:
        return "is empty"
    if len(address) > MAX_ADDRESS:
        return f"is too long ({len(address)} characters; at most {MAX_ADDRESS})"
    if not address.isascii():
        return "contains non-ASCII characters"
    if address.split() != [address]:  # it holds whitespace
        return "contains spaces (separate several addresses with commas)"
    if address.count("@") != 1:
        return "must contain exactly one '@', as in 'name@university.edu'"
    local, domain = address.split("@")
    if _LOCAL.fullmatch(local) is None:
        return "has an invalid part before the '@' (letters, digits and . _ - + ' % are allowed, no spaces)"
    labels = domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels) or not _TLD.fullmatch(labels[-1]):
        return "has an invalid domain after the '@'; it should look like 'university.edu'"
    return None


def _show(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "..."


def _check_to(raw: str) -> None:
    if "," in raw or ";" in raw:
        raise Refuse("'to' takes exactly one address; put further recipients in 'cc', separated by commas.")
    problem = address_problem(raw)
    if problem:
        raise Refuse(f"The address in 'to' ('{_show(raw)}') {problem}. Give one address like 'advisor@university.edu'.")


def _read_cc(raw: str) -> list[str]:
    if ";" in raw:
        raise Refuse("Separate the addresses in 'cc' with commas, not semicolons.")
    addresses = [a.strip() for a in raw.split(",")]
    for address in addresses:
        problem = address_problem(address)
        if problem:
            shown = f" ('{_show(address)}')" if address else ""
            raise Refuse(
                f"An address in 'cc'{shown} {problem}. Give one or more addresses separated by commas, "
                "like 'a@university.edu, b@university.edu'."
            )
    return addresses


def _check_subject(subject: str) -> None:
    if not subject:
        raise Refuse("The subject is empty; give a short subject line.")
    if len(subject) > MAX_SUBJECT:
        raise Refuse(f"The subject is too long ({len(subject)} characters; at most {MAX_SUBJECT}). Shorten it.")
    if _CONTROL.search(subject) is not None:
        raise Refuse("The subject must be a single line of text without line breaks or tabs.")


# ------------------------------------------------------------------ handler


def send_email(view: Any, args: dict[str, Any]) -> Outcome:
    to = args["to"].strip()
    subject = args["subject"].strip()
    body = args["body"].strip()
    _check_to(to)
    _check_subject(subject)
    if not body:
        raise Refuse("The body is empty; write the message text in 'body'.")
    cc_raw = args.get("cc", "").strip()
    cc = ", ".join(_read_cc(cc_raw)) if cc_raw else ""
    part: EmailState = view.state.email
    email_id = f"mail_{part.next_email}"
    fact = EmailSent(email_id=email_id, to=to, subject=subject, body=body, cc=cc)
    copied = f" (cc: {cc})" if cc else ""
    return ok(f"Email sent to {to}{copied} with subject '{subject}'.", [fact], {"email_id": email_id, "to": to})


# ------------------------------------------------------------------ reducer


def _sent(part: EmailState, event: EmailSent) -> None:
    part.sent.append(Mail(email_id=event.email_id, to=event.to, cc=event.cc, subject=event.subject, body=event.body))
    part.next_email += 1


# ------------------------------------------------------------------ declarations

SEND_EMAIL = ToolDecl(
    name="email.send_email",
    system="email",
    description=(
        "Send an email from your university account. There is no inbox: replies are not delivered to you. "
        "The result confirms the recipient and subject."
    ),
    params=(
        Param(
            name="to",
            type="string",
            description="The one recipient's address, e.g. 'advisor@university.edu'.",
            max_length=MAX_ADDRESS,
        ),
        Param(name="subject", type="string", description="The subject line: one line, at most 200 characters.", max_length=MAX_SUBJECT),
        Param(name="body", type="string", description="The message text; it may span several lines."),
        Param(
            name="cc",
            type="string",
            description="Further recipients to copy: one or more addresses separated by commas, e.g. 'a@university.edu, b@university.edu'.",
            required=False,
            max_length=2000,
        ),
    ),
    handler=send_email,
    mutates=True,
    example=(
        'email.send_email(to="advisor@university.edu", subject="Meeting request", '
        'body="Dear Professor, could we meet on Week 3, Monday at 10:00? Best regards.")'
    ),
)

EMAIL_TOOLS: tuple[ToolDecl, ...] = (SEND_EMAIL,)


def _new_email(world: Any) -> EmailState:
    return EmailState()


EMAIL = Domain(
    name="email",
    state_type=EmailState,
    initial=_new_email,
    reducers={EmailSent: _sent},
    tools=EMAIL_TOOLS,
)
