CREATE TABLE `api_tokens` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`token_hash` char(64) NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`revoked_at` datetime(3),
	CONSTRAINT `api_tokens_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `api_tokens_id` UNIQUE(`id`),
	CONSTRAINT `api_tokens_hash` UNIQUE(`token_hash`)
);
--> statement-breakpoint
CREATE TABLE `clients` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(200) NOT NULL,
	`email` varchar(254),
	`phone` varchar(40),
	`tax_id` varchar(32),
	`billing_address` varchar(500),
	`status` varchar(16) NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `clients_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `clients_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE TABLE `companies` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`name` varchar(200) NOT NULL,
	`plan` varchar(16) NOT NULL,
	`addons` json NOT NULL,
	`max_projects` int,
	`max_workers` int,
	`rate_limit` int,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `companies_id` PRIMARY KEY(`id`)
);
--> statement-breakpoint
CREATE TABLE `equipment` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(200) NOT NULL,
	`category_id` bigint unsigned,
	`serial_number` varchar(64),
	`daily_rate` decimal(14,2),
	`status` varchar(16) NOT NULL,
	`live` tinyint DEFAULT 1,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `equipment_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `equipment_id` UNIQUE(`id`),
	CONSTRAINT `equipment_serial` UNIQUE(`company_id`,`serial_number`,`live`)
);
--> statement-breakpoint
CREATE TABLE `equipment_categories` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(100) NOT NULL,
	CONSTRAINT `equipment_categories_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `equipment_categories_id` UNIQUE(`id`),
	CONSTRAINT `equipment_categories_name` UNIQUE(`company_id`,`name`)
);
--> statement-breakpoint
CREATE TABLE `estimates` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`title` varchar(200) NOT NULL,
	`client_id` bigint unsigned,
	`amount` decimal(14,2) NOT NULL,
	`currency` char(3) NOT NULL,
	`valid_until` date,
	`status` varchar(16) NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `estimates_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `estimates_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`company_id` bigint unsigned NOT NULL,
	`idempotency_key` varchar(255) NOT NULL,
	`fingerprint` char(64) NOT NULL,
	`owner` char(36) NOT NULL,
	`locked_until` datetime(3) NOT NULL,
	`status_code` int,
	`response_body` json,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	CONSTRAINT `idempotency_keys_company_id_idempotency_key_pk` PRIMARY KEY(`company_id`,`idempotency_key`)
);
--> statement-breakpoint
CREATE TABLE `projects` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(200) NOT NULL,
	`code` varchar(32),
	`client_id` bigint unsigned,
	`billing_mode` varchar(24) NOT NULL,
	`budget_estimate_id` bigint unsigned,
	`budget_amount` decimal(14,2),
	`currency` char(3) NOT NULL,
	`start_date` date,
	`end_date` date,
	`address` varchar(500),
	`status` varchar(16) NOT NULL,
	`live` tinyint DEFAULT 1,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `projects_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `projects_id` UNIQUE(`id`),
	CONSTRAINT `projects_code` UNIQUE(`company_id`,`code`,`live`)
);
--> statement-breakpoint
CREATE TABLE `rate_windows` (
	`company_id` bigint unsigned NOT NULL,
	`window_start` bigint unsigned NOT NULL,
	`hits` int unsigned NOT NULL DEFAULT 0,
	CONSTRAINT `rate_windows_company_id_window_start_pk` PRIMARY KEY(`company_id`,`window_start`)
);
--> statement-breakpoint
CREATE TABLE `equipment_rentals` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`equipment_id` bigint unsigned NOT NULL,
	`project_id` bigint unsigned NOT NULL,
	`start_date` date NOT NULL,
	`end_date` date,
	`daily_rate` decimal(14,2),
	`billed` boolean NOT NULL DEFAULT false,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `equipment_rentals_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `equipment_rentals_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE TABLE `subcontractors` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(200) NOT NULL,
	`trade_id` bigint unsigned,
	`email` varchar(254),
	`phone` varchar(40),
	`tax_id` varchar(32),
	`insurance_expires_on` date,
	`status` varchar(16) NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `subcontractors_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `subcontractors_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE TABLE `trades` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(100) NOT NULL,
	CONSTRAINT `trades_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `trades_id` UNIQUE(`id`),
	CONSTRAINT `trades_name` UNIQUE(`company_id`,`name`)
);
--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`company_id` bigint unsigned NOT NULL,
	`period` char(7) NOT NULL,
	`requests` bigint unsigned NOT NULL DEFAULT 0,
	`dry_run_requests` bigint unsigned NOT NULL DEFAULT 0,
	`replays` bigint unsigned NOT NULL DEFAULT 0,
	CONSTRAINT `usage_counters_company_id_period_pk` PRIMARY KEY(`company_id`,`period`)
);
--> statement-breakpoint
CREATE TABLE `workers` (
	`id` bigint unsigned AUTO_INCREMENT NOT NULL,
	`company_id` bigint unsigned NOT NULL,
	`name` varchar(200) NOT NULL,
	`email` varchar(254),
	`phone` varchar(40),
	`trade_id` bigint unsigned,
	`hourly_rate` decimal(14,2),
	`hired_on` date,
	`status` varchar(16) NOT NULL,
	`created_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`updated_at` datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
	`deleted_at` datetime(3),
	CONSTRAINT `workers_company_id_id_pk` PRIMARY KEY(`company_id`,`id`),
	CONSTRAINT `workers_id` UNIQUE(`id`)
);
--> statement-breakpoint
CREATE INDEX `equipment_category` ON `equipment` (`company_id`,`category_id`);--> statement-breakpoint
CREATE INDEX `estimates_client` ON `estimates` (`company_id`,`client_id`);--> statement-breakpoint
CREATE INDEX `idempotency_keys_created` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE INDEX `projects_client` ON `projects` (`company_id`,`client_id`);--> statement-breakpoint
CREATE INDEX `projects_budget_estimate` ON `projects` (`company_id`,`budget_estimate_id`);--> statement-breakpoint
CREATE INDEX `equipment_rentals_equipment` ON `equipment_rentals` (`company_id`,`equipment_id`);--> statement-breakpoint
CREATE INDEX `equipment_rentals_project` ON `equipment_rentals` (`company_id`,`project_id`);--> statement-breakpoint
CREATE INDEX `subcontractors_trade` ON `subcontractors` (`company_id`,`trade_id`);--> statement-breakpoint
CREATE INDEX `workers_trade` ON `workers` (`company_id`,`trade_id`);