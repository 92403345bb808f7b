CREATE TABLE `webhook_attempts` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`delivery_id` bigint unsigned NOT NULL,
	`status_code` int,
	`error` varchar(500),
	`duration_ms` int unsigned NOT NULL,
	`attempted_at` datetime(3) NOT NULL,
	CONSTRAINT `webhook_attempts_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `webhook_attempts_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`endpoint_id` bigint unsigned NOT NULL,
	`event_id` char(30) NOT NULL,
	`event_type` varchar(64) NOT NULL,
	`payload` mediumtext NOT NULL,
	`status` varchar(16) NOT NULL,
	`attempts` int unsigned NOT NULL DEFAULT 0,
	`next_attempt_at` datetime(3) NOT NULL,
	`lease_owner` char(36),
	`lease_until` datetime(3),
	`delivered_at` datetime(3),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `webhook_deliveries_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `webhook_deliveries_id` UNIQUE(`id`),
	CONSTRAINT `webhook_deliveries_event` UNIQUE(`company_id`,`endpoint_id`,`event_id`)
);
--> statement-breakpoint
CREATE TABLE `webhook_endpoints` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`url` varchar(2048) NOT NULL,
	`events` text NOT NULL,
	`description` varchar(500),
	`enabled` boolean NOT NULL DEFAULT true,
	`secret` varchar(80) NOT NULL,
	`cursor` varchar(40),
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `webhook_endpoints_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `webhook_endpoints_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery` ON `webhook_attempts` (`company_id`,`delivery_id`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_due` ON `webhook_deliveries` (`status`,`next_attempt_at`);