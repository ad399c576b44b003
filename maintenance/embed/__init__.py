"""Embedding: the Embedder protocol, the content-hash cache flow (``embed_memories``) and the
backends (MiniLM through onnxruntime, hashing, sentence-transformers, OpenAI-compatible)."""
