"""The Spindle Jupyter kernel (issue 32) under `jupyter_kernel_test`, plus what that
suite does not cover: interrupts, output streamed while a cell runs, and a headless
run of examples/notebook.ipynb with nbclient.

Needs the kernel spec installed where this Python's Jupyter finds it
(`spindle jupyter install --prefix "$VIRTUAL_ENV"`); `.ci/jupyter.sh` does all that.
"""

from __future__ import annotations

import atexit
import os
import pathlib
import shutil
import tempfile
import time
import unittest

import jupyter_kernel_test
import nbformat
from jupyter_client.manager import start_new_kernel
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[2]

# The kernels keep their history under $XDG_DATA_HOME/spindle: the tests' own
# directory, not the user's.
_DATA = tempfile.mkdtemp(prefix="spindle-kernel-tests-")
atexit.register(shutil.rmtree, _DATA, True)
os.environ["XDG_DATA_HOME"] = _DATA


class SpindleKernelTests(jupyter_kernel_test.KernelTests):
    """Every sample of jupyter_kernel_test that has a Spindle form (all but
    `code_clear_output`: Spindle has no way to clear a cell's output)."""

    kernel_name = "spindle"
    language_name = "spindle"
    file_extension = ".sp"

    # `:print` writes a value as `spindle run` prints it: a String raw, to stdout.
    code_hello_world = ':print "hello, world"'
    # `trace` writes to standard error.
    code_stderr = 'trace "to standard error" 1'
    # `:doc NAME` is a pager payload.
    code_page_something = ":doc map"
    # A type error: the reply is an error and the only output is the error.
    code_generate_error = '1 + "a"'

    code_execute_result = [
        {"code": "1 + 2", "result": "3 : Int"},
        {"code": '"a" ++ "b"', "result": '"ab" : String'},
        {"code": "[1, 2]", "mime": "application/json", "result": [1, 2]},
        {"code": "(1, True)", "mime": "application/json", "result": [1, True]},
    ]
    code_display_data = [
        {"code": 'JObj [("a", JNum 1.5), ("b", JArr [JNull])]', "mime": "application/json"},
    ]

    supported_history_operations = ("tail", "range", "search")
    # Matches one of the inputs above, and no other input of these tests.
    code_history_pattern = "1 + 2"

    completion_samples = [
        {"text": "lengt", "matches": {"length"}},
        {"text": ":do", "matches": {":doc"}},
        {"text": "1 + sortB", "matches": {"sortBy"}},
    ]
    complete_code_samples = ["1 + 2", "def x = 1", ":doc map", "def x = 1\nx + 1"]
    incomplete_code_samples = ["(1 +", "def f (x : Int) : Int =", 'let x = 5']
    invalid_code_samples = ["1 )", ":frob", "def x = 1\n) + 2"]

    code_inspect_sample = "map"


class ExtraKernelTests(unittest.TestCase):
    """Interrupts and streaming, on a kernel of their own."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.km, cls.kc = start_new_kernel(kernel_name="spindle")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.kc.stop_channels()
        cls.km.shutdown_kernel()

    def outputs(self, msg_id: str, timeout: float = 10) -> list[dict]:
        """The IOPub messages of one request, up to its `idle` status."""
        got = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            msg = self.kc.get_iopub_msg(timeout=timeout)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            msg["received"] = time.monotonic()
            got.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return got
        raise AssertionError(f"no idle status for {msg_id}")

    def reply_to(self, msg_id: str, timeout: float = 10) -> dict:
        """The shell reply to one request (replies left unread by earlier tests are
        skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            reply = self.kc.get_shell_msg(timeout=max(deadline - time.monotonic(), 0.01))
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    def interrupt_after(self, code: str, wait: float) -> None:
        """Runs `code`, interrupts it after `wait` s; the reply must come within 2 s
        of the interrupt, as an error, and the next cell must work."""
        msg_id = self.kc.execute(code)
        time.sleep(wait)
        start = time.monotonic()
        self.km.interrupt_kernel()
        reply = self.kc.get_shell_msg(timeout=10)
        took = time.monotonic() - start
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertIn("interrupted", reply["content"]["evalue"])
        self.assertLess(took, 2.0, f"the cell stopped {took:.2f} s after the interrupt")
        self.outputs(msg_id)
        after = self.kc.execute("1 + 1")
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["content"]["status"], "ok")
        results = [m for m in self.outputs(after) if m["msg_type"] == "execute_result"]
        self.assertEqual(results[0]["content"]["data"]["text/plain"], "2 : Int")

    def test_interrupt_stops_a_running_call(self) -> None:
        self.interrupt_after('shell "sleep 30"', 1.0)

    def test_interrupt_stops_an_endless_evaluation(self) -> None:
        self.interrupt_after("length (iterate (\\x -> x + 1) 0)", 1.0)

    def test_output_is_streamed_while_the_cell_runs(self) -> None:
        # `trace` writes when its message is evaluated, before the 2 s call ends.
        msg_id = self.kc.execute('trace "started" (shell "sleep 2; echo done")')
        msgs = self.outputs(msg_id, timeout=20)
        streams = [m for m in msgs if m["msg_type"] == "stream"]
        result = next(m for m in msgs if m["msg_type"] == "execute_result")
        self.assertEqual(streams[0]["content"]["name"], "stderr")
        # The line comes whole, in one message.
        self.assertEqual(streams[0]["content"]["text"], "started\n")
        self.assertGreater(result["received"] - streams[0]["received"], 1.0)
        self.assertEqual(result["content"]["data"]["text/plain"], '"done\\n" : String')

    def test_cells_queued_behind_a_failed_one_are_aborted(self) -> None:
        failing = self.kc.execute('shell "sleep 1; exit 3"')
        queued = self.kc.execute(':print "not run"')
        first = self.kc.get_shell_msg(timeout=10)
        second = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(first["parent_header"]["msg_id"], failing)
        self.assertEqual(first["content"]["status"], "error")
        self.assertEqual(second["parent_header"]["msg_id"], queued)
        self.assertEqual(second["content"]["status"], "aborted")
        self.outputs(failing)
        self.assertFalse([m for m in self.outputs(queued) if m["msg_type"] == "stream"])

    def test_a_message_with_a_wrong_signature_is_ignored(self) -> None:
        from jupyter_client.session import Session

        forged = Session(key=b"not the key", username="intruder")
        forged.send(self.kc.shell_channel.socket, "execute_request", {"code": ':print "forged"',
                    "silent": False, "store_history": True, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True})
        msg_id = self.kc.execute(':print "signed"')
        reply = self.kc.get_shell_msg(timeout=10)
        # The first reply is the signed request's: the forged one got none.
        self.assertEqual(reply["parent_header"]["msg_id"], msg_id)
        texts = [m["content"]["text"] for m in self.outputs(msg_id) if m["msg_type"] == "stream"]
        self.assertEqual(texts, ["signed\n"])

    def test_declarations_stay_for_later_cells_and_errors_name_their_place(self) -> None:
        msg_id = self.kc.execute("data Color = Red | Green\ndef favourite = Green")
        self.assertEqual(self.kc.get_shell_msg(timeout=10)["content"]["status"], "ok")
        self.outputs(msg_id)
        msg_id = self.kc.execute("favourite")
        self.kc.get_shell_msg(timeout=10)
        results = [m for m in self.outputs(msg_id) if m["msg_type"] == "execute_result"]
        self.assertEqual(results[0]["content"]["data"]["text/plain"], "Green : Color")
        self.assertEqual(
            results[0]["content"]["data"]["application/json"],
            {"constructor": "Green", "fields": []},
        )
        msg_id = self.kc.execute("def y = 1\nfavourite + 1")
        reply = self.kc.get_shell_msg(timeout=10)
        self.assertEqual(reply["content"]["status"], "error")
        # The place is the cell's line 2, column 1.
        self.assertIn("<repl>:2:1", reply["content"]["evalue"])


    def test_a_cell_reads_standard_input_from_the_notebook(self) -> None:
        msg_id = self.kc.execute('readFile "/dev/stdin"', allow_stdin=True)
        ask = self.kc.get_stdin_msg(timeout=10)
        self.assertEqual(ask["msg_type"], "input_request")
        self.assertEqual(ask["parent_header"]["msg_id"], msg_id)
        self.assertFalse(ask["content"]["password"])
        self.kc.input("Ada")
        reply = self.reply_to(msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        results = [m for m in self.outputs(msg_id) if m["msg_type"] == "execute_result"]
        self.assertEqual(results[0]["content"]["data"]["text/plain"], '"Ada\\n" : String')

    def test_standard_input_without_allow_stdin_is_an_error_at_once(self) -> None:
        start = time.monotonic()
        msg_id = self.kc.execute('readFile "/dev/stdin"', allow_stdin=False)
        reply = self.reply_to(msg_id)
        self.assertLess(time.monotonic() - start, 5)
        self.assertEqual(reply["content"]["status"], "error")
        self.assertIn("allow_stdin", "\n".join(reply["content"]["traceback"]))
        self.outputs(msg_id)

    def test_json_objects_keep_the_order_of_the_value(self) -> None:
        # As `spindle run --format json` writes them: a record's fields as declared.
        msg_id = self.kc.execute('record Pt = { zeta : Int, alpha : String }\n{ alpha = "a", zeta = 1 }')
        self.assertEqual(self.reply_to(msg_id)["content"]["status"], "ok")
        results = [m for m in self.outputs(msg_id) if m["msg_type"] == "execute_result"]
        value = results[0]["content"]["data"]["application/json"]
        self.assertEqual(list(value.items()), [("zeta", 1), ("alpha", "a")])


class HistoryAcrossKernelsTests(unittest.TestCase):
    """History is kept across kernels, as IPython keeps it: a new kernel's `tail`
    has the cells of the kernel before it."""

    def test_a_new_kernel_has_the_cells_of_the_one_before(self) -> None:
        with tempfile.TemporaryDirectory() as data:
            env = {**os.environ, "XDG_DATA_HOME": data}
            km, kc = start_new_kernel(kernel_name="spindle", env=env)
            try:
                for code in ["1 + 2", 'def greeting = "hi"']:
                    kc.execute_interactive(code, timeout=10)
            finally:
                kc.stop_channels()
                km.shutdown_kernel()
            km, kc = start_new_kernel(kernel_name="spindle", env=env)
            try:
                kc.execute_interactive("2 * 5", timeout=10)
                kc.history(hist_access_type="tail", n=3, output=False, raw=True)
                history = kc.get_shell_msg(timeout=10)["content"]["history"]
            finally:
                kc.stop_channels()
                km.shutdown_kernel()
            self.assertEqual(
                history, [[1, 1, "1 + 2"], [1, 2, 'def greeting = "hi"'], [2, 1, "2 * 5"]]
            )
            self.assertTrue((pathlib.Path(data) / "spindle" / "kernel_history").is_file())


class NotebookTests(unittest.TestCase):
    """examples/notebook.ipynb runs headless, with the outputs it promises."""

    def test_example_notebook_runs(self) -> None:
        nb = nbformat.read(ROOT / "examples" / "notebook.ipynb", as_version=4)
        NotebookClient(nb, kernel_name="spindle", timeout=60).execute()
        outs = [c.outputs for c in nb.cells if c.cell_type == "code"]
        decls, samples, report, shell, printed = outs
        self.assertIn("rate : Sample -> Float", "".join(o.get("text", "") for o in decls))
        self.assertEqual(samples[-1]["data"]["text/plain"], "[0.9214, 0.9] : List Float")
        display = [o for o in report if o["output_type"] == "display_data"]
        self.assertEqual(display[0]["data"]["application/json"]["best"], "S1")
        self.assertEqual(
            display[0]["data"]["application/json"]["samples"][1],
            {"name": "S2", "reads": 1000, "mapped": 900},
        )
        self.assertEqual(shell[0]["data"]["application/json"], "HELLO FROM THE SHELL\n")
        streams = {"stdout": "", "stderr": ""}
        for o in printed:
            if o["output_type"] == "stream":
                streams[o["name"]] += o["text"]
        self.assertEqual(streams["stdout"], "S1: 0.9214\nS2: 0.9\n")
        self.assertEqual(streams["stderr"], "a note on standard error\n")
        self.assertEqual(printed[-1]["data"]["text/plain"], "2 : Int")


if __name__ == "__main__":
    unittest.main()
