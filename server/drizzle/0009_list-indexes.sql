DROP INDEX `equipment_category` ON `equipment`;--> statement-breakpoint
DROP INDEX `estimates_client` ON `estimates`;--> statement-breakpoint
DROP INDEX `projects_client` ON `projects`;--> statement-breakpoint
DROP INDEX `subcontractors_trade` ON `subcontractors`;--> statement-breakpoint
DROP INDEX `workers_trade` ON `workers`;--> statement-breakpoint
CREATE INDEX `clients_status` ON `clients` (`company_id`,`status`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `clients_updated` ON `clients` (`company_id`,`updated_at`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `equipment_status` ON `equipment` (`company_id`,`status`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `equipment_updated` ON `equipment` (`company_id`,`updated_at`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `estimates_status` ON `estimates` (`company_id`,`status`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `estimates_updated` ON `estimates` (`company_id`,`updated_at`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `projects_status` ON `projects` (`company_id`,`status`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `projects_updated` ON `projects` (`company_id`,`updated_at`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `subcontractors_status` ON `subcontractors` (`company_id`,`status`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `subcontractors_updated` ON `subcontractors` (`company_id`,`updated_at`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `workers_status` ON `workers` (`company_id`,`status`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `workers_updated` ON `workers` (`company_id`,`updated_at`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `equipment_category` ON `equipment` (`company_id`,`category_id`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `estimates_client` ON `estimates` (`company_id`,`client_id`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `projects_client` ON `projects` (`company_id`,`client_id`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `subcontractors_trade` ON `subcontractors` (`company_id`,`trade_id`,`deleted_at`);--> statement-breakpoint
CREATE INDEX `workers_trade` ON `workers` (`company_id`,`trade_id`,`deleted_at`);