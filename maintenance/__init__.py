"""memmaint.maintenance: records, stores, embeddings, agents, the nightly job and the CLI."""

from memmaint.maintenance.core.records import Memory, Status, content_hash, utcnow

__all__ = ["Memory", "Status", "content_hash", "utcnow"]
__version__ = "0.1.0"
