CREATE INDEX `clients_by_name` ON `clients` (`company_id`,`live`,`name`);--> statement-breakpoint
CREATE INDEX `clients_by_created` ON `clients` (`company_id`,`live`,`created_at`);--> statement-breakpoint
CREATE INDEX `equipment_by_name` ON `equipment` (`company_id`,`live`,`name`);--> statement-breakpoint
CREATE INDEX `equipment_by_created` ON `equipment` (`company_id`,`live`,`created_at`);--> statement-breakpoint
CREATE INDEX `estimates_by_title` ON `estimates` (`company_id`,`live`,`title`);--> statement-breakpoint
CREATE INDEX `estimates_by_valid_until` ON `estimates` (`company_id`,`live`,`valid_until`);--> statement-breakpoint
CREATE INDEX `estimates_by_created` ON `estimates` (`company_id`,`live`,`created_at`);--> statement-breakpoint
CREATE INDEX `projects_by_name` ON `projects` (`company_id`,`live`,`name`);--> statement-breakpoint
CREATE INDEX `projects_by_start_date` ON `projects` (`company_id`,`live`,`start_date`);--> statement-breakpoint
CREATE INDEX `projects_by_created` ON `projects` (`company_id`,`live`,`created_at`);--> statement-breakpoint
CREATE INDEX `subcontractors_by_name` ON `subcontractors` (`company_id`,`live`,`name`);--> statement-breakpoint
CREATE INDEX `subcontractors_by_insurance` ON `subcontractors` (`company_id`,`live`,`insurance_expires_on`);--> statement-breakpoint
CREATE INDEX `subcontractors_by_created` ON `subcontractors` (`company_id`,`live`,`created_at`);--> statement-breakpoint
CREATE INDEX `workers_by_name` ON `workers` (`company_id`,`live`,`name`);--> statement-breakpoint
CREATE INDEX `workers_by_hired_on` ON `workers` (`company_id`,`live`,`hired_on`);--> statement-breakpoint
CREATE INDEX `workers_by_created` ON `workers` (`company_id`,`live`,`created_at`);