"""What the Ctrl-C subprocess scripts of tests/test_review210_give_up.py and tests/test_review218_give_up.py share:
the Agent whose first reply calls the stubborn tool ``t`` and ``quick``, a thread sending SIGINT once the tool
started (a second one in the grace when ``twice``), and the async and sync runs that keep what they raised."""

RUN_AND_CTRL_C = """reply = AIMessage(content="", tool_calls=[{"name": "t", "args": {"x": 1}, "id": "c1"},
                                          {"name": "quick", "args": {"x": 2}, "id": "c2"}])
agent = Agent(ScriptedChatModel([reply, "done", "done"]), [t, quick])

def ctrl_c():  # the second once the first reached the stubborn tool or helper: in the grace
    if started.wait(10):
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)
        if twice and ignored.wait(10):
            time.sleep(0.3)
            os.kill(os.getpid(), signal.SIGINT)

raised = []

async def main():
    try:
        await agent.ainvoke("go")
    except BaseException as exc:
        raised.append(exc)
        raise

def main_sync():
    try:
        agent.invoke("go")
    except BaseException as exc:
        raised.append(exc)
        raise

"""
