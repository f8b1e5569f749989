"""`python -m memtui.agents.langgraph_example PATH`: a LangGraph agent whose memories memtui shows.

A two-node graph (`remember`, then `recall`) with MemtuiStore as its long-term store. A scripted
chat model from langchain-core stands in for a real one, so it runs without an API key: the
first turn saves what the user said as memories, the second finds them by search and answers
with them. Open PATH with `memtui PATH` afterwards: the items are JSON files under
`users/ana/memories/`, and the history names the agent (`agent:langgraph-example`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from memtui.core.reporting import fail, open_failure

ACTOR = "agent:langgraph-example"
USER = "ana"
NAMESPACE = ("users", USER, "memories")
TELL = "I drink oat-milk flat whites, and I moved to Lisbon in March."
ASK = "What coffee should you order for me in Lisbon?"
EXTRACTED = [
    {"key": "coffee-order", "memory": "Ana orders oat-milk flat whites at every coffee shop"},
    {"key": "home-city", "memory": "Ana has lived in Lisbon since March"},
]
"""What the scripted model extracts from TELL (a real model would decide this itself)."""
ANSWER = "An oat-milk flat white: you told me you drink them, and you live in Lisbon now."


def scripted_model() -> Any:
    """A chat model from langchain-core that answers with the two scripted replies in turn."""
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage

    return FakeMessagesListChatModel(
        responses=[AIMessage(content=json.dumps(EXTRACTED)), AIMessage(content=ANSWER)]
    )


def build_graph(store: Any, model: Any) -> Any:
    """remember -> recall, compiled with `store` as the graph's long-term memory."""
    from langchain_core.messages import HumanMessage, SystemMessage
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.runtime import Runtime

    def remember(state: MessagesState, runtime: Runtime[None]) -> dict[str, Any]:
        """Ask the model what to remember from the user's first message and save each memory."""
        said = state["messages"][0].content
        reply = model.invoke(
            [SystemMessage("List the facts worth remembering as JSON."), HumanMessage(said)]
        )
        assert runtime.store is not None
        for fact in json.loads(str(reply.content)):
            runtime.store.put(NAMESPACE, fact["key"], {"memory": fact["memory"]})
            print(f"saved   {'/'.join(NAMESPACE)}/{fact['key']}.json: {fact['memory']}")
        return {}

    def recall(state: MessagesState, runtime: Runtime[None]) -> dict[str, Any]:
        """Search the memories for the question and answer with them in the prompt."""
        question = str(state["messages"][-1].content)
        assert runtime.store is not None
        found = runtime.store.search(NAMESPACE, query=question, limit=3)
        for item in found:
            print(f"recalled {item.key} (score {item.score:.2f}): {item.value['memory']}")
        known = "\n".join(f"- {item.value['memory']}" for item in found)
        reply = model.invoke([SystemMessage(f"What you know:\n{known}"), HumanMessage(question)])
        return {"messages": [reply]}

    builder = StateGraph(MessagesState)
    builder.add_node("remember", remember)
    builder.add_node("recall", recall)
    builder.add_edge(START, "remember")
    builder.add_edge("remember", "recall")
    builder.add_edge("recall", END)
    return builder.compile(store=store)


def run(path: str) -> int:
    """Run the two turns on PATH and print what was saved, recalled and answered."""
    try:
        from memtui.agents.langgraph import MemtuiStore
    except ImportError as error:
        return fail("langgraph_example", error)
    from memtui.core.config import ConfigError
    from memtui.core.recording.database import HistoryCorrupt

    try:
        store = MemtuiStore(path, actor=ACTOR)
        store.store.history  # noqa: B018 - open now, so a broken store fails before the graph runs
    except (ConfigError, HistoryCorrupt, OSError) as error:
        return open_failure("langgraph_example", path, error)
    graph = build_graph(store, scripted_model())
    state = graph.invoke({"messages": [("user", TELL), ("user", ASK)]})
    print(f"answer  {state['messages'][-1].content}")
    print(f"See them with `memtui {path}`; the history names {ACTOR}.")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: one PATH argument, the memory folder."""
    parser = argparse.ArgumentParser(
        prog="python -m memtui.agents.langgraph_example",
        description="A LangGraph agent (scripted model, no API key) that saves and recalls "
        "memories in the memtui folder PATH.",
    )
    parser.add_argument("path", metavar="PATH", help="the memory folder (created if missing)")
    return run(parser.parse_args(list(argv) if argv is not None else None).path)


if __name__ == "__main__":
    sys.exit(main())
