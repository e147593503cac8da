"""harness/processes.py: a subreaper finds children that left its process group, double-forked ones included, and
kills them; children in its group are left alone. Run in a subprocess (the subreaper setting is per process)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import json, subprocess, time
    from kernelopt.harness import processes as P
    out = {"subreaper": P.become_subreaper()}
    same = subprocess.Popen(["sleep", "30"])
    own_session = subprocess.Popen(["sleep", "30"], start_new_session=True)
    subprocess.run(["sh", "-c", "setsid sleep 31 & exit 0"], check=True)  # orphaned into a new session
    time.sleep(0.3)
    found = P.escaped()
    out["same"], out["own"] = same.pid, own_session.pid
    out["escaped"] = [pid for pid, _ in found]
    out["comms"] = sorted({comm for _, comm in found})
    out["killed"] = [pid for pid, _ in P.kill_escaped(found)]
    out["after"] = P.escaped()
    out["children_after"] = P.children()
    same.kill(); same.wait()
    out["describe"] = P.describe([(1, "init"), (2, "x y")])
    print(json.dumps(out))
""")


def test_escaped_children_are_found_and_killed_in_group_children_kept():
    import json

    res = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["subreaper"] is True
    assert out["own"] in out["escaped"] and out["same"] not in out["escaped"]
    assert len(out["escaped"]) == 2 and out["comms"] == ["sleep"]  # the adopted grandchild too
    assert sorted(out["killed"]) == sorted(out["escaped"]) and out["after"] == []
    assert out["children_after"] == [out["same"]]
    assert out["describe"] == "pid 1 (init), pid 2 (x y)"


def test_a_process_that_is_not_a_subreaper_leaves_its_children_alone():
    """In-process evaluation (tests, notebooks) must not kill a Ray head or a server it started in another session."""
    script = ("import subprocess, time, json\nfrom kernelopt.harness import processes as P\n"
              "p = subprocess.Popen(['sleep', '30'], start_new_session=True); time.sleep(0.2)\n"
              "print(json.dumps([P.escaped(), p.poll()])); p.kill()\n")
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[[], null]"
