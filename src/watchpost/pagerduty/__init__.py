"""PagerDuty integrations (the hosted API's /api/v2/pager-duty-webhooks): incidents sent to
PagerDuty's Events API v2 with a routing key."""
