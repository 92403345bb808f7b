-- Webhook endpoints deliver sensitive fields (hourly_rate, tax ids) only when set to include them by a token
-- holding `sensitive`; every endpoint made before starts without them.
ALTER TABLE `webhook_endpoints` ADD `include_sensitive` boolean DEFAULT false NOT NULL;
