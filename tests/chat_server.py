"""A real chat-completions endpoint on 127.0.0.1 for tests, answering from a script.

``ChatServer`` is an ``http.server`` in a thread on a free port, speaking enough of
``POST /v1/chat/completions`` for the official ``openai`` client. Each request takes the next
answer of the script: a reply text, tool calls, an HTTP error or a raw body. Every request body
is kept, so a test can count the requests and read the prompts the agent sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering (to meet a client's timeout)."""


def completion(content: str | None = None, tool_calls: list[dict[str, Any]] | None = None, *,
               prompt_tokens: int = 11, completion_tokens: int = 7) -> Answer:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    body = {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "script-model",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }
    return Answer(200, json.dumps(body).encode())


def text(content: str) -> Answer:
    return completion(content)


def tool_call(name: str, arguments: dict[str, Any] | str, call_id: str = "call_1", content: str | None = None) -> Answer:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return completion(content, [{"id": call_id, "type": "function", "function": {"name": name, "arguments": raw}}])


def error(status: int, message: str = "scripted error", headers: dict[str, str] | None = None) -> Answer:
    body = {"error": {"message": message, "type": "scripted", "code": None}}
    return Answer(status, json.dumps(body).encode(), headers or {})


class ChatServer:
    """Serves ``script`` in order; once it runs out, every request gets a 400 saying so.

    With ``respond``, every request is answered by ``respond(request)`` instead (for many runs
    at once, whose requests arrive in no fixed order). ``most_at_once`` is the largest number
    of requests that were in flight together.
    """

    def __init__(self, script: Iterable[Answer] = (), *, api_key: str | None = None,
                 respond: Callable[[dict[str, Any]], Answer] | None = None) -> None:
        self.script: deque[Answer] = deque(script)
        self.api_key = api_key
        self.respond = respond
        self.requests: list[dict[str, Any]] = []
        self.in_flight = 0
        self.most_at_once = 0
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def extend(self, answers: Iterable[Answer]) -> None:
        with self._lock:
            self.script.extend(answers)

    def _next(self, request: dict[str, Any], authorization: str | None) -> Answer:
        with self._lock:
            self.requests.append(request)
            if self.api_key is not None and authorization != f"Bearer {self.api_key}":
                return error(401, "Incorrect API key provided")
            if self.respond is not None:
                return self.respond(request)
            if not self.script:
                return error(400, "the test script has no more answers")
            return self.script.popleft()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes: no 40 ms stalls

            def do_POST(self) -> None:  # noqa: N802 (the http.server name)
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.in_flight += 1
                    server.most_at_once = max(server.most_at_once, server.in_flight)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    answer = error(404, f"no route {self.path}")
                else:
                    answer = server._next(body, self.headers.get("Authorization"))
                time.sleep(answer.delay)
                with server._lock:
                    server.in_flight -= 1
                self.send_response(answer.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(answer.body)))
                for name, value in answer.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(answer.body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
