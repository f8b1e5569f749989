"""One query by meaning or by text and meaning together, over one index: the seam the app, the
CLI, MCP and the LangGraph store call (they hold one `MeaningSearch` per open store)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor

from memtui.notes.index import NoteIndex
from memtui.notes.meaning.embedder import Embedder
from memtui.notes.meaning.fusion import Fused, rank_fusion
from memtui.notes.meaning.scan import MeaningHit, VectorScan
from memtui.notes.search import (
    ActorLookup,
    Searcher,
    SearchFilters,
    SearchHit,
    matching_notes,
)

LINES_PER_FILE = 4
"""Text hits asked for per file wanted (a file may match on several lines)."""


def text_ranking(hits: Iterable[SearchHit]) -> list[tuple[str, float]]:
    """Each file of a text search's hits once, with its best hit's score, in the hits' order."""
    ranking: dict[str, float] = {}
    for hit in hits:
        ranking.setdefault(hit.path, hit.score)
    return list(ranking.items())


class MeaningSearch:
    """Search by meaning over one index's vectors with one model (vectors held in memory)."""

    def __init__(self, index: NoteIndex, embedder: Embedder) -> None:
        """Search `index` with `embedder`'s vectors (made by `sync.sync_vectors`)."""
        self.index = index
        self.embedder = embedder
        self.scan = VectorScan(index.db)
        self._beside = ThreadPoolExecutor(1, thread_name_prefix="memtui-meaning")

    def nearest(
        self, query: str, limit: int, *, paths: Collection[str] | None = None
    ) -> list[MeaningHit]:
        """The `limit` files nearest `query` in meaning, each with its nearest section."""
        vector = self.embedder.embed([query])[0]
        return self.scan.nearest(vector, limit, paths=paths)

    def hybrid_hits(
        self,
        searcher: Searcher,
        query: str,
        *,
        limit: int = 50,
        filters: SearchFilters | None = None,
        cancelled: Callable[[], bool] | None = None,
        visible: Callable[[str], bool] | None = None,
    ) -> tuple[list[Fused], list[SearchHit]]:
        """The best `limit` files for `query` by text and meaning fused (filters apply to both;
        the searcher's history answers the actor filter), and the text hits they were ranked
        from (for their lines and highlights); with `visible`, the text half searches only the
        files it allows. The meaning half runs on a thread of its own while this one searches
        the text: its products release the interpreter."""
        paths = self._passing(filters, searcher.history)
        meaning = self._beside.submit(self._nearest_related, query, limit, paths)
        hits = searcher.search(
            query,
            limit=limit * LINES_PER_FILE,
            filters=filters,
            cancelled=cancelled,
            visible=visible,
        )
        return rank_fusion(text_ranking(hits), meaning.result())[:limit], hits

    def nearest_passing(
        self, query: str, limit: int, filters: SearchFilters | None, history: ActorLookup | None
    ) -> list[MeaningHit]:
        """`nearest` among the files that pass `filters` (`history` answers the actor filter),
        leaving out those no nearer than unrelated (a cosine similarity of 0 or less)."""
        return self._nearest_related(query, limit, self._passing(filters, history))

    def _passing(
        self, filters: SearchFilters | None, history: ActorLookup | None
    ) -> set[str] | None:
        """The files that pass `filters`, or None when there are none to pass."""
        if filters is None or not filters.any():
            return None
        return matching_notes(self.index, filters, history)

    def _nearest_related(
        self, query: str, limit: int, paths: Collection[str] | None
    ) -> list[MeaningHit]:
        """`nearest` among `paths`, leaving out what is no nearer than unrelated."""
        if not query.strip():
            return []
        return [hit for hit in self.nearest(query, limit, paths=paths) if hit.score > 0]
