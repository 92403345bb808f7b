ALTER TABLE `clients` MODIFY COLUMN `external_id` varchar(255) COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `equipment` MODIFY COLUMN `serial_number` varchar(64) COLLATE utf8mb4_bin, MODIFY COLUMN `external_id` varchar(255) COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `estimates` MODIFY COLUMN `external_id` varchar(255) COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `projects` MODIFY COLUMN `code` varchar(32) COLLATE utf8mb4_bin, MODIFY COLUMN `external_id` varchar(255) COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `subcontractors` MODIFY COLUMN `external_id` varchar(255) COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `workers` MODIFY COLUMN `external_id` varchar(255) COLLATE utf8mb4_bin;
