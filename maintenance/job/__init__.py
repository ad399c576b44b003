"""The nightly job: load, embed, reduce, cluster, plan, apply, report; and executors."""
