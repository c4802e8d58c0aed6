SELECT * FROM 订单 WHERE 备注 LIKE '%超时%' -- 中文注释
