async def probe(settings, *, timeout):
    raise NotImplementedError
