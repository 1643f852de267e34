"""Searching: the questions retrieval's rules need answered by the index and the
embedding providers (full-text and vector candidates, one retrieval fused and ranked,
a new insight's duplicates and conflicts). The rules themselves are in retrieval/."""
