"""The whole-body IK with its solve in a process of its own, so the graph's Python goes on meanwhile.

In a composed graph every node's Python runs under one interpreter lock, and the IK's solve (mink's
two QPs, ~0.7 ms a tick alone, ~1 ms in the running graph) is the largest single part of it. A
:class:`SolveProcess` has the :class:`~.whole_body_ik.WholeBodyIK` interface the IK node uses, and
is two of them:

* here, a *local* one that takes every call at once: it checks each (an :class:`~.errors.IKError`
  goes to the caller, and a refused call is not passed on) and answers every question the node asks
  between solves (stances, foot poses, the configuration given);
* in a child process, a *remote* one that receives, with each solve, the calls the local one took
  since the last, in their order, makes them, and solves.

So the remote IK goes through the very calls an IK in this process would, and its results are the
same, bit for bit (tested). The local one never solves: what a solve changes (the configuration it
reaches, the stall history) is read by the node only through the result, and the next tick's
:meth:`update` sets the configuration anew before anything reads it.

:meth:`start_solve` sends a solve and returns at once; :meth:`finish_solve` takes its result,
doing ``idle(until)`` work while it waits. The IK node publishes the foot states (measured, not
solved) in between, so the sequencer steps while the solve runs. If the child process fails, the
error names it and the local IK takes over the solving (the run goes on, no longer bit-identical
to one that solved in process).

The child is started with ``spawn`` (the parent holds DDS threads, which ``fork`` must not copy) and
ends when the pipe closes: with :meth:`close`, or with this process.
"""

from __future__ import annotations

import multiprocessing
import pickle
import signal
from collections.abc import Callable
from typing import Any

import mujoco

from .whole_body_ik import IKConfig, IKResult, WholeBodyIK

ANSWER_TIMEOUT = 60.0
"""Wall seconds a solve waits for the child's answer (the first one includes the child's start:
its imports, the model, a warm-up solve) before the child is given up."""
STOP_TIMEOUT = 2.0
"""Wall seconds :meth:`SolveProcess.close` waits for the child to leave before it is killed."""
_RESTART = "__restart__"
_SET = "__set__"


class SolveProcess:
    """A :class:`WholeBodyIK` whose solves run in a child process (see the module's text)."""

    def __init__(self, model: mujoco.MjModel, config: IKConfig | None = None) -> None:
        config = IKConfig() if config is None else config
        self._local = WholeBodyIK(model, config)
        self._calls: list[tuple[str, tuple]] = []
        """The calls the local IK took since the last solve was sent, for the remote one."""
        self._waiting = False
        self._solve_here = False
        """A solve was asked after the child was given up: the local IK makes it."""
        self._failed: str | None = None
        context = multiprocessing.get_context("spawn")
        self._pipe, child = context.Pipe()
        self._process = context.Process(target=serve, args=(child, model, config), name="sally_ik solve", daemon=True)
        self._process.start()
        child.close()

    # --- what the local IK answers ----------------------------------------------------------------
    @property
    def model(self) -> mujoco.MjModel:
        """The model solved."""
        return self._local.model

    @property
    def modes(self):
        """Each foot's stance (as :attr:`WholeBodyIK.modes`)."""
        return self._local.modes

    @property
    def configuration(self):
        """The configuration last given (:meth:`update`); never a solve's."""
        return self._local.configuration

    @property
    def config(self) -> IKConfig:
        """The IK's step, costs and limits; a new one goes to the child with the next solve."""
        return self._local.config

    @config.setter
    def config(self, config: IKConfig) -> None:
        self._assign("config", config)

    @property
    def conform(self) -> bool:
        """As :attr:`WholeBodyIK.conform`; a change goes to the child with the next solve."""
        return self._local.conform

    @conform.setter
    def conform(self, conform: bool) -> None:
        self._assign("conform", conform)

    def foot_pose(self, foot: str):
        """``foot``'s EE site pose in the world, at the configuration last given."""
        return self._local.foot_pose(foot)

    @property
    def pid(self) -> int | None:
        """The child process's id."""
        return self._process.pid

    @property
    def failed(self) -> str | None:
        """Why the child process was given up (the local IK solves since), or None."""
        return self._failed

    # --- calls, taken here and passed on ----------------------------------------------------------
    def _take(self, name: str, *args) -> None:
        getattr(self._local, name)(*args)  # raises IKError for a call the IK refuses: not passed on
        self._calls.append((name, args))

    def _assign(self, name: str, value) -> None:
        """Set the local IK's attribute ``name``; the child sets it with the next solve."""
        setattr(self._local, name, value)
        self._calls.append((_SET, (name, value)))

    def update(self, qpos) -> None:
        """:meth:`WholeBodyIK.update`, here and (with the next solve) in the child."""
        self._take("update", qpos)

    def hold_body(self) -> None:
        """:meth:`WholeBodyIK.hold_body`, here and in the child."""
        self._take("hold_body")

    def set_body_target(self, body) -> None:
        """:meth:`WholeBodyIK.set_body_target`, here and in the child."""
        self._take("set_body_target", body)

    def set_stance(self, foot: str, mode) -> None:
        """:meth:`WholeBodyIK.set_stance`, here and in the child."""
        self._take("set_stance", foot, mode)

    def set_target(self, foot: str, target) -> None:
        """:meth:`WholeBodyIK.set_target`, here and in the child (refused here: in neither)."""
        self._take("set_target", foot, target)

    def restart(self, config: IKConfig) -> None:
        """The IK as at launch with ``config`` (a new sim): here and in the child, which stays."""
        if self._waiting:
            self.finish_solve()
        self._local = WholeBodyIK(self._local.model, config)
        self._calls = [(_RESTART, (config,))]

    # --- solving ----------------------------------------------------------------------------------
    def start_solve(self) -> None:
        """Send the calls taken since the last solve, and a solve; returns at once."""
        if self._waiting or self._solve_here:
            raise RuntimeError("a solve is under way: finish_solve() it first")
        calls, self._calls = self._calls, []
        if self._failed is None:
            try:
                self._pipe.send(calls)
                self._waiting = True
                return
            except (OSError, ValueError, TypeError, pickle.PicklingError) as exc:
                self._give_up(f"cannot send it a solve ({type(exc).__name__}: {exc})")
        self._solve_here = True

    def finish_solve(self, idle: Callable[[Callable[[], bool]], Any] | None = None) -> IKResult:
        """The result of the solve sent; ``idle(until)`` is called while it is not in (``until()``
        says it is)."""
        if not self._waiting:
            if self._solve_here:
                self._solve_here = False
                return self._local.solve()
            raise RuntimeError("no solve under way: start_solve() first")
        self._waiting = False
        try:
            if idle is not None and not self._pipe.poll():
                idle(self._pipe.poll)
            if not self._pipe.poll(ANSWER_TIMEOUT):
                raise TimeoutError(f"no answer within {ANSWER_TIMEOUT:g} s")
            answer = self._pipe.recv()
        except (EOFError, OSError, TimeoutError) as exc:
            self._give_up(f"it ended or stopped answering ({type(exc).__name__}: {exc})")
            return self._local.solve()
        if isinstance(answer, IKResult):
            return answer
        self._give_up(f"it failed: {answer}")
        return self._local.solve()

    def solve(self) -> IKResult:
        """:meth:`start_solve` then :meth:`finish_solve`."""
        self.start_solve()
        return self.finish_solve()

    def _give_up(self, why: str) -> None:
        self._failed = f"the IK's solve process (pid {self._process.pid}): {why}; solving in this process from now on"
        self._close_child()

    # --- the end ----------------------------------------------------------------------------------
    def close(self) -> None:
        """End the child process (waited for, then killed)."""
        self._close_child()

    def _close_child(self) -> None:
        self._waiting = False
        try:
            self._pipe.close()  # the child's recv ends: it leaves
        except OSError:
            pass
        self._process.join(STOP_TIMEOUT)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(STOP_TIMEOUT)

    def __del__(self) -> None:  # a node never closed (a failed start) leaves no process behind
        process = getattr(self, "_process", None)
        if process is not None and process.pid is not None and process.is_alive():
            self._close_child()


def serve(pipe, model: mujoco.MjModel, config: IKConfig) -> None:  # pragma: no cover - the child process
    """The child: make each batch of calls on its IK, solve, send the result; leave when the pipe
    closes (a Ctrl-C in the terminal is the parent's to act on)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    WholeBodyIK(model, config).solve()  # warm up: the first solve is slow, and a lockstep graph waits on it
    ik = WholeBodyIK(model, config)
    while True:
        try:
            calls = pipe.recv()
        except (EOFError, OSError):
            return
        try:
            for name, args in calls:
                if name == _RESTART:
                    ik = WholeBodyIK(model, *args)
                elif name == _SET:
                    setattr(ik, *args)
                else:
                    getattr(ik, name)(*args)
            answer: object = ik.solve()
        except Exception as exc:  # noqa: BLE001 - sent to the parent, which names it and solves itself
            answer = f"{type(exc).__name__}: {exc}"
        try:
            pipe.send(answer)
        except (EOFError, OSError):
            return
