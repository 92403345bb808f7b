ALTER TABLE `webhook_endpoints` ADD `previous_secret` varchar(80);--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret_until` datetime(3);