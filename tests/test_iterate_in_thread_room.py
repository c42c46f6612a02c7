"""Review 107 #2: a consumer of ``iterate_in_thread`` that stops reading without leaving (``break`` out of an
``async for`` over a stream kept open) stops the producer within ``AHEAD`` items, as a paused sync stream does; the
embedded model used to write its whole reply for no one."""

from __future__ import annotations

import asyncio
import threading

from toolwire._concurrency import AHEAD, iterate_in_thread


def test_the_thread_waits_once_the_consumer_stops_taking_items_and_ends_when_it_leaves() -> None:
    made: list[int] = []
    closed = threading.Event()

    def produce(stop: threading.Event):
        try:
            for n in range(10_000):
                made.append(n)
                yield n
        finally:
            closed.set()

    async def main() -> tuple[list[int], int]:
        stream = iterate_in_thread(produce, "test-room")
        taken = [await stream.__anext__(), await stream.__anext__()]
        for _ in range(200):  # the thread runs ahead of the consumer, then waits
            await asyncio.sleep(0.01)
        paused_at = len(made)
        await asyncio.sleep(0.3)
        assert len(made) == paused_at  # still waiting: nothing more made for a consumer that is not reading
        await stream.aclose()
        return taken, paused_at

    taken, paused_at = asyncio.run(main())
    assert taken == [0, 1] and paused_at <= 2 + AHEAD + 1
    assert closed.wait(5)  # the consumer left: the thread closed the iterator


def test_a_consumer_that_reads_everything_gets_every_item_in_order() -> None:
    async def main() -> list[int]:
        return [item async for item in iterate_in_thread(lambda stop: iter(range(5 * AHEAD)), "test-room")]

    assert asyncio.run(main()) == list(range(5 * AHEAD))
