"""Status page subscriptions: e-mail (double opt-in) and webhook subscribers of a public page,
told of its reports and maintenance through the delivery system."""
