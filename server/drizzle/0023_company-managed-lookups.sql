-- Trades and equipment categories become company-managed records: external_id, live, timestamps and soft delete;
-- names unique among live ones ignoring case (name_key, the name in lower case, byte-exact), the old unique name dropped.
ALTER TABLE `equipment_categories` DROP INDEX `equipment_categories_name`;--> statement-breakpoint
ALTER TABLE `trades` DROP INDEX `trades_name`;--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD `name_key` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin GENERATED ALWAYS AS (LOWER(`name`)) STORED;--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD `external_id` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD `live` tinyint DEFAULT 1;--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD `created_at` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) NOT NULL;--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD `updated_at` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) NOT NULL;--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD `deleted_at` datetime(3);--> statement-breakpoint
ALTER TABLE `trades` ADD `name_key` varchar(100) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin GENERATED ALWAYS AS (LOWER(`name`)) STORED;--> statement-breakpoint
ALTER TABLE `trades` ADD `external_id` varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;--> statement-breakpoint
ALTER TABLE `trades` ADD `live` tinyint DEFAULT 1;--> statement-breakpoint
ALTER TABLE `trades` ADD `created_at` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) NOT NULL;--> statement-breakpoint
ALTER TABLE `trades` ADD `updated_at` datetime(3) DEFAULT CURRENT_TIMESTAMP(3) NOT NULL;--> statement-breakpoint
ALTER TABLE `trades` ADD `deleted_at` datetime(3);--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD CONSTRAINT `equipment_categories_name_key` UNIQUE(`company_id`,`name_key`,`live`);--> statement-breakpoint
ALTER TABLE `equipment_categories` ADD CONSTRAINT `equipment_categories_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
ALTER TABLE `trades` ADD CONSTRAINT `trades_name_key` UNIQUE(`company_id`,`name_key`,`live`);--> statement-breakpoint
ALTER TABLE `trades` ADD CONSTRAINT `trades_external_id` UNIQUE(`company_id`,`external_id`,`live`);--> statement-breakpoint
CREATE INDEX `equipment_categories_by_name` ON `equipment_categories` (`company_id`,`live`,`name`);--> statement-breakpoint
CREATE INDEX `trades_by_name` ON `trades` (`company_id`,`live`,`name`);