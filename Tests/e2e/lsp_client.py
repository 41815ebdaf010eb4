"""A small LSP client that drives the built `pgn-lsp` over pipes, for the integration tests."""
import json
import queue
import subprocess
import threading
import time

from conftest import binary


class LSPClient:
    def __init__(self, args=("serve",), command=None, env=None):
        """Starts `pgn-lsp` (the binary under test) with `args`, or `command` as given, in `env`
        (default: the test's environment)."""
        self.process = subprocess.Popen(command or [str(binary()), *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.next_id = 1
        self.messages = queue.Queue()
        self.notifications = []
        self.server_requests = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.process.stderr), daemon=True).start()

    def frames(self):
        """The frames the server writes, as (time its header began to arrive, body bytes), until
        its output ends (or ends mid-frame, when a test closed it)."""
        stream = self.process.stdout
        while True:
            headers = {}
            arrived = None
            while True:
                line = stream.readline()
                if not line:
                    return
                arrived = arrived or time.perf_counter()
                line = line.decode("ascii").strip()
                if not line:
                    break
                name, value = line.split(":", 1)
                headers[name.lower()] = value.strip()
            length = int(headers["content-length"])
            body = stream.read(length)
            if len(body) < length:
                return
            yield arrived, body

    def _read(self):
        for _, body in self.frames():
            self.messages.put(json.loads(body))
        self.messages.put(None)

    def send_raw(self, data: bytes):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message):
        body = json.dumps(message).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method, params=None):
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params is not None else {})})

    def request_async(self, method, params=None):
        id_ = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params is not None else {})})
        return id_

    def wait_for(self, predicate, timeout=20):
        """Reads messages until one satisfies `predicate`; keeps the others."""
        while True:
            message = self.messages.get(timeout=timeout)
            if message is None:
                raise EOFError("the server closed its output")
            if "id" in message and "method" in message:
                self.server_requests.append(message)
                # Answer what a simple client answers.
                result = None
                if message["method"] == "workspace/configuration":
                    result = [self.configuration] if hasattr(self, "configuration") else [None]
                elif message["method"] == "workspace/applyEdit":
                    result = {"applied": True}
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            elif "method" in message:
                self.notifications.append(message)
            if predicate(message):
                return message

    def response(self, id_, timeout=20):
        return self.wait_for(lambda m: m.get("id") == id_ and "method" not in m, timeout)

    def request(self, method, params=None, timeout=20):
        message = self.response(self.request_async(method, params), timeout)
        if "error" in message:
            raise RuntimeError(message["error"])
        return message["result"]

    def initialize(self, encodings=("utf-16",), options=None, capabilities=None, client_info=None, root_uri=None):
        # What editors announce for the features these tests read (markdown hovers, as
        # VS Code and Neovim take them); a test of another client passes its own.
        caps = {"general": {"positionEncodings": list(encodings)},
                "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]},
                                 "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
                                 "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": [
                                     "quickfix", "source", "source.fixAll"]}}}},
                "workspace": {"applyEdit": True}}
        caps.update(capabilities or {})
        result = self.request("initialize", {"processId": None, "rootUri": root_uri, "capabilities": caps,
                                             **({"initializationOptions": options} if options else {}),
                                             **({"clientInfo": client_info} if client_info else {})})
        self.notify("initialized", {})
        return result

    def open(self, uri, text, version=1):
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "pgn", "version": version,
                                                              "text": text}})

    def diagnostics(self, uri, version=None):
        message = self.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == uri
                                and (version is None or m["params"].get("version") == version))
        return message["params"]["diagnostics"]

    def shutdown(self):
        self.request("shutdown")
        self.notify("exit")
        return self.process.wait(timeout=10)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
