"""On-call calendars: who is on call when (events, rotations), for escalation policies'
`current_on_call` members and the `on_call_change` webhooks."""
