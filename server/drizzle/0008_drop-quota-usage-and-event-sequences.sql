DROP TABLE `event_sequences`;--> statement-breakpoint
DROP TABLE `quota_usage`;