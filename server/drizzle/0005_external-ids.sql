ALTER TABLE `clients` ADD `external_id` varchar(255);--> statement-breakpoint
ALTER TABLE `clients` ADD `live` tinyint DEFAULT 1;--> statement-breakpoint
ALTER TABLE `equipment` ADD `external_id` varchar(255);--> statement-breakpoint
ALTER TABLE `estimates` ADD `external_id` varchar(255);--> statement-breakpoint
ALTER TABLE `estimates` ADD `live` tinyint DEFAULT 1;--> statement-breakpoint
ALTER TABLE `projects` ADD `external_id` varchar(255);--> statement-breakpoint
ALTER TABLE `subcontractors` ADD `external_id` varchar(255);--> statement-breakpoint
ALTER TABLE `subcontractors` ADD `live` tinyint DEFAULT 1;--> statement-breakpoint
ALTER TABLE `workers` ADD `external_id` varchar(255);--> statement-breakpoint
ALTER TABLE `workers` ADD `live` tinyint DEFAULT 1;--> statement-breakpoint
UPDATE `clients` SET `live` = NULL WHERE `deleted_at` IS NOT NULL;--> statement-breakpoint
UPDATE `estimates` SET `live` = NULL WHERE `deleted_at` IS NOT NULL;--> statement-breakpoint
UPDATE `subcontractors` SET `live` = NULL WHERE `deleted_at` IS NOT NULL;--> statement-breakpoint
UPDATE `workers` SET `live` = NULL WHERE `deleted_at` IS NOT NULL;--> statement-breakpoint
ALTER TABLE `clients` ADD CONSTRAINT `clients_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
ALTER TABLE `equipment` ADD CONSTRAINT `equipment_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
ALTER TABLE `estimates` ADD CONSTRAINT `estimates_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
ALTER TABLE `projects` ADD CONSTRAINT `projects_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
ALTER TABLE `subcontractors` ADD CONSTRAINT `subcontractors_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
ALTER TABLE `workers` ADD CONSTRAINT `workers_external_id` UNIQUE(`company_id`,`external_id`,`live`);