"""The public side of status pages: HTML pages, who may see them, their caching."""
